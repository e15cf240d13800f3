// A scripted model on 127.0.0.1 for the real agent CLIs (shared notes: real-agent-clis.md). It
// speaks just enough of four APIs: Anthropic Messages (Claude Code), OpenAI Responses (Codex CLI),
// Gemini generateContent (Gemini CLI) and OpenAI chat completions (Copilot CLI, OpenCode:
// chatCompletions.ts). Every run follows one script: "write file X with content Y, then answer
// DONE". It is stateless per request: the conversation a CLI sends decides the answer (no tool
// result yet: ask for the write; a tool result: say DONE), so retries and side requests cannot
// desynchronise it.
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { chatTurn, writeChatAnswer } from './chatCompletions';

export interface ModelScript {
  /** Path relative to the agent's working directory. */
  readonly file: string;
  readonly content: string;
  /** The final answer after the tool ran. */
  readonly answer?: string;
}

/** normal: follow the script; always-401: reject every model call as unauthenticated. */
/** 'rate-limited-once': the first model call is answered 429 (a usage limit that resets in 3 s), the rest as 'normal'. */
export type ServerMode = 'normal' | 'always-401' | 'rate-limited-once';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  /** openai: the Responses API; chat: chat completions. */
  readonly api: 'anthropic' | 'openai' | 'chat' | 'gemini' | 'other';
  readonly body: unknown;
  /** What the server answered: 'tool', 'text', 'json', 'error', 'not-found'. */
  answered?: string;
}

const maxBodyBytes = 32 * 1024 * 1024;
const maxRecorded = 500;
/** After this many tool calls the server only answers with text, so no CLI can loop forever. */
const maxToolCalls = 8;

type Json = Record<string, unknown>;

export class ModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private toolCalls = 0;
  private nextId = 1;

  private constructor(
    private readonly server: http.Server,
    public script: ModelScript,
    public mode: ServerMode,
  ) {}

  static async start(script: ModelScript, mode: ServerMode = 'normal'): Promise<ModelServer> {
    const server = http.createServer();
    const model = new ModelServer(server, script, mode);
    server.on('request', (req, res) => model.handle(req, res));
    server.on('connection', (socket) => {
      model.sockets.add(socket);
      socket.once('close', () => model.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return model;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Requests that reached a model endpoint (not HEAD probes or unknown paths). */
  modelCalls(api?: RecordedRequest['api']): RecordedRequest[] {
    return this.requests.filter((r) => r.api !== 'other' && (api === undefined || r.api === api));
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await closed;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded) {
        return;
      }
      let body: unknown;
      try {
        body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      const url = req.url ?? '/';
      const record: RecordedRequest = { method: req.method ?? 'GET', url, api: apiOf(req.method ?? 'GET', url), body };
      if (this.requests.length < maxRecorded) {
        this.requests.push(record);
      }
      try {
        this.answer(record, res);
      } catch (e) {
        record.answered = 'error';
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
        }
        res.end(JSON.stringify({ error: { message: `model server: ${(e as Error).message}` } }));
      }
    });
  }

  private answer(record: RecordedRequest, res: http.ServerResponse): void {
    if (record.api === 'other') {
      record.answered = 'not-found';
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    if (this.mode === 'always-401') {
      record.answered = 'error';
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(unauthorized(record.api)));
      return;
    }
    if (this.mode === 'rate-limited-once') {
      this.mode = 'normal';
      record.answered = 'error';
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' })
        .end(JSON.stringify(rateLimited(record.api)));
      return;
    }
    const body = (record.body ?? {}) as Json;
    if (record.api === 'anthropic') {
      this.anthropic(record, body, res);
    } else if (record.api === 'openai') {
      this.openai(record, body, res);
    } else if (record.api === 'chat') {
      const turn = chatTurn(body, this.script.file, this.script.content, () => this.wantsTool(false, true));
      record.answered = turn.call ? 'tool' : 'text';
      writeChatAnswer(res, body, turn, this.finalText, `chatcmpl_${this.nextId++}`);
    } else {
      this.gemini(record, body, res);
    }
  }

  /** The write is asked for once per conversation: only while no tool result has come back. */
  private wantsTool(hasToolResult: boolean, offersTool: boolean): boolean {
    if (hasToolResult || !offersTool || this.toolCalls >= maxToolCalls) {
      return false;
    }
    this.toolCalls++;
    return true;
  }

  private get finalText(): string {
    return this.script.answer ?? 'DONE';
  }

  // ---- Anthropic Messages API (Claude Code) ----

  private anthropic(record: RecordedRequest, body: Json, res: http.ServerResponse): void {
    const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
    // The environment block (with the cwd) comes in `system` or in a message with role "system".
    const cwd = /Primary working directory: (.+)/
      .exec([blockText(body.system), ...messages.map((m) => blockText(m.content))].join('\n'))?.[1]
      ?.trim();
    const hasToolResult = messages.some(
      (m) => Array.isArray(m.content) && (m.content as Json[]).some((c) => c.type === 'tool_result'),
    );
    const id = `msg_${this.nextId++}`;
    let block: Json;
    let stop: string;
    if (
      cwd !== undefined &&
      this.wantsTool(
        hasToolResult,
        tools.some((t) => t.name === 'Write'),
      )
    ) {
      record.answered = 'tool';
      const input = { file_path: `${cwd.replace(/\/+$/, '')}/${this.script.file}`, content: this.script.content };
      block = { type: 'tool_use', id: `toolu_${this.nextId++}`, name: 'Write', input };
      stop = 'tool_use';
    } else {
      record.answered = 'text';
      block = { type: 'text', text: this.finalText };
      stop = 'end_turn';
    }
    const model = typeof body.model === 'string' ? body.model : 'claude-scripted';
    const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (body.stream !== true) {
      json(res, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
        stop_reason: stop,
        stop_sequence: null,
        usage,
      });
      return;
    }
    const events: Array<[string, Json]> = [
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        },
      ],
    ];
    if (block.type === 'tool_use') {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } },
      ]);
      events.push([
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        },
      ]);
    } else {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ]);
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } },
      ]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
    events.push([
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } },
    ]);
    events.push(['message_stop', { type: 'message_stop' }]);
    sse(res, events);
  }

  // ---- OpenAI Responses API (Codex CLI) ----

  private openai(record: RecordedRequest, body: Json, res: http.ServerResponse): void {
    const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
    const hasToolResult = input.some((i) => i.type === 'custom_tool_call_output' || i.type === 'function_call_output');
    const responseId = `resp_${this.nextId++}`;
    let item: Json;
    if (
      this.wantsTool(
        hasToolResult,
        tools.some((t) => t.name === 'apply_patch' && t.type === 'custom'),
      )
    ) {
      record.answered = 'tool';
      const lines = this.script.content
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => `+${l}`);
      const patch = ['*** Begin Patch', `*** Add File: ${this.script.file}`, ...lines, '*** End Patch', ''].join('\n');
      item = {
        type: 'custom_tool_call',
        id: `ctc_${this.nextId++}`,
        call_id: `call_${this.nextId++}`,
        name: 'apply_patch',
        input: patch,
        status: 'completed',
      };
    } else {
      record.answered = 'text';
      item = {
        type: 'message',
        id: `msg_${this.nextId++}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: this.finalText, annotations: [] }],
      };
    }
    const usage = {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    };
    sse(res, [
      ['response.created', { type: 'response.created', response: { id: responseId, status: 'in_progress' } }],
      ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }],
      ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
      [
        'response.completed',
        { type: 'response.completed', response: { id: responseId, status: 'completed', output: [item], usage } },
      ],
    ]);
  }

  // ---- Gemini API (Gemini CLI) ----

  private gemini(record: RecordedRequest, body: Json, res: http.ServerResponse): void {
    const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
    if (record.url.includes(':countTokens')) {
      record.answered = 'json';
      json(res, { totalTokens: 10 });
      return;
    }
    if (record.url.includes(':generateContent')) {
      // Side calls (model routing, next-speaker checks) want JSON in a given shape.
      record.answered = 'json';
      const text = JSON.stringify(structuredAnswer(body));
      json(res, {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata,
      });
      return;
    }
    const contents = Array.isArray(body.contents) ? (body.contents as Json[]) : [];
    const last = contents[contents.length - 1];
    const hasToolResult =
      Array.isArray(last?.parts) && (last.parts as Json[]).some((p) => p.functionResponse !== undefined);
    const declarations = (Array.isArray(body.tools) ? (body.tools as Json[]) : []).flatMap((t) =>
      Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Json[]) : [],
    );
    let part: Json;
    if (
      this.wantsTool(
        hasToolResult,
        declarations.some((d) => d.name === 'write_file'),
      )
    ) {
      record.answered = 'tool';
      part = {
        functionCall: { name: 'write_file', args: { file_path: this.script.file, content: this.script.content } },
      };
    } else {
      record.answered = 'text';
      part = { text: this.finalText };
    }
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata,
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  }
}

function apiOf(method: string, url: string): RecordedRequest['api'] {
  const path = url.split('?')[0];
  if (method !== 'POST') {
    return 'other';
  }
  if (path === '/v1/messages') {
    return 'anthropic';
  }
  if (path === '/v1/responses') {
    return 'openai';
  }
  if (path === '/v1/chat/completions') {
    return 'chat';
  }
  if (/^\/v1(beta|alpha)?\/models\/[^/]+:(generateContent|streamGenerateContent|countTokens)$/.test(path)) {
    return 'gemini';
  }
  return 'other';
}

/** The text of an Anthropic `system` or message `content`: a string or an array of blocks. */
function blockText(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  return Array.isArray(value) ? value.map((b: Json) => (typeof b.text === 'string' ? b.text : '')).join('\n') : '';
}

/** A JSON answer that fits the schema a Gemini side call asks for. */
function structuredAnswer(body: Json): Json {
  const config = (body.generationConfig ?? body.config ?? {}) as Json;
  const schema = (config.responseJsonSchema ?? config.responseSchema ?? {}) as Json;
  const properties = Object.keys((schema.properties ?? {}) as Json);
  if (properties.includes('complexity_score')) {
    return { complexity_reasoning: 'A small, single-file edit.', complexity_score: 10 };
  }
  if (properties.includes('next_speaker')) {
    return { reasoning: 'The task is done.', next_speaker: 'user' };
  }
  return Object.fromEntries(properties.map((p) => [p, '']));
}

function unauthorized(api: RecordedRequest['api']): Json {
  if (api === 'anthropic') {
    return { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } };
  }
  if (api === 'gemini') {
    return {
      error: { code: 401, message: 'API key not valid. Please pass a valid API key.', status: 'UNAUTHENTICATED' },
    };
  }
  return { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } };
}

/** A usage limit in each API's own shape, its message saying when it resets (as the providers' do). */
function rateLimited(api: RecordedRequest['api']): Json {
  const message = 'Rate limit reached: usage limit reached, resets in 3s.';
  if (api === 'anthropic') {
    return { type: 'error', error: { type: 'rate_limit_error', message } };
  }
  if (api === 'gemini') {
    return { error: { code: 429, message, status: 'RESOURCE_EXHAUSTED' } };
  }
  return { error: { message, type: 'requests', code: 'rate_limit_exceeded' } };
}

function json(res: http.ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

function sse(res: http.ServerResponse, events: ReadonlyArray<[string, Json]>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
}
