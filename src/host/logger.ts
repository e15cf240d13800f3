import * as vscode from 'vscode';
import type { Logger } from '../core/ports';

/** The extension's single log channel; callers prefix lines with `[Component]`. */
export class ChannelLogger implements Logger, vscode.Disposable {
  readonly channel = vscode.window.createOutputChannel('Parallel Agents', { log: true });

  info(message: string): void {
    this.channel.info(message);
  }

  warn(message: string): void {
    this.channel.warn(message);
  }

  error(message: string): void {
    this.channel.error(message);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
