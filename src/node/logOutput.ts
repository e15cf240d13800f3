import { type Event, Emitter } from '../util/event';
import { LogTailer } from './logTailer';

/**
 * A log's output as an event, read only while someone listens: an agent whose output nobody
 * follows costs no reading or decoding, however much it prints. What was appended while nobody
 * listened comes to the next listener, from where reading stopped; every byte once, in order.
 */
export class LogOutput {
  private readonly emitter = new Emitter<string>({
    onFirstListener: () => this.follow(),
    onLastListener: () => this.unfollow(),
  });
  readonly event: Event<string> = this.emitter.event;
  private tailer?: LogTailer;
  private closed = false;

  /** `wake` is called when the log changed (while someone listens): the owner then calls pump(). */
  constructor(
    private readonly logPath: string,
    private position: number,
    private readonly wake: () => void,
  ) {}

  /** False while someone listens and the log's changes cannot be watched: the owner has to poll. */
  get watching(): boolean {
    return this.tailer?.watching ?? true;
  }

  /** Reads what was appended, if someone listens; `final`: no more output can follow. */
  async pump(final = false): Promise<void> {
    await this.tailer?.pump(final);
  }

  /** Stops reading for good; listeners are dropped. */
  close(): void {
    this.closed = true;
    this.unfollow();
    this.emitter.dispose();
  }

  private follow(): void {
    if (!this.tailer && !this.closed) {
      this.tailer = new LogTailer(
        this.logPath,
        this.position,
        (text) => {
          if (text !== '') {
            this.emitter.fire(text);
          }
        },
        this.wake,
      );
      this.wake();
    }
  }

  private unfollow(): void {
    if (this.tailer) {
      this.position = this.tailer.position;
      this.tailer.close();
      this.tailer = undefined;
    }
  }
}
