// The OpenAI chat-completions API of the scripted model (modelServer.ts), as the Copilot CLI (BYOK
// provider) and OpenCode (@ai-sdk/openai-compatible) call it: POST /v1/chat/completions with
// stream: true, answered by SSE `chat.completion.chunk`s, a usage chunk and `data: [DONE]`. The
// conversation decides the answer: a write while no `role: "tool"` message has come back and a
// write tool is offered, text otherwise (OpenCode's title call offers no tools). Shared notes:
// real-agent-clis.md.
import type * as http from 'node:http';

type Json = Record<string, unknown>;

/** The write tools each CLI offers, with the argument names of its path and content. */
const writeTools: ReadonlyArray<{ readonly name: string; readonly path: string; readonly content: string }> = [
  { name: 'create', path: 'path', content: 'file_text' }, // Copilot CLI
  { name: 'write', path: 'filePath', content: 'content' }, // OpenCode
];

/** Where each CLI states the working folder in its system prompt. */
const cwdPatterns = [/\* Current working directory: (\S.*)/, /Working directory: (\S.*)/];

/** What one chat-completions request asks of the scripted model. */
export interface ChatTurn {
  /** The write tool to call with its arguments; undefined: answer with text. */
  readonly call?: { readonly name: string; readonly arguments: Json };
}

/** The text of a message's `content`: a string or an array of parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') {
    return content;
  }
  return Array.isArray(content)
    ? content.map((p: Json) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('')
    : '';
}

function messagesOf(body: unknown): Json[] {
  const messages = (body as Json | undefined)?.messages;
  return Array.isArray(messages) ? (messages as Json[]) : [];
}

/** The texts of the user messages of a recorded request body, in order. */
export function userMessages(body: unknown): string[] {
  return messagesOf(body)
    .filter((m) => m.role === 'user')
    .map((m) => contentText(m.content));
}

/** Whether the request offers tools: OpenCode's title call does not. */
export function offersTools(body: unknown): boolean {
  const tools = (body as Json | undefined)?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/**
 * The write the conversation asks for, or none: `mayCall` says whether the server still allows a
 * tool call (it caps them); called only when a write tool is offered and no tool result came back.
 */
export function chatTurn(body: Json, file: string, content: string, mayCall: () => boolean): ChatTurn {
  const messages = messagesOf(body);
  const names = new Set(
    (Array.isArray(body.tools) ? (body.tools as Json[]) : []).map((t) => (t.function as Json | undefined)?.name),
  );
  const tool = writeTools.find((t) => names.has(t.name));
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .join('\n');
  const cwd = cwdPatterns
    .map((p) => p.exec(system)?.[1]?.trim())
    .find((v) => v !== undefined)
    ?.replace(/\/+$/, '');
  if (tool === undefined || cwd === undefined || messages.some((m) => m.role === 'tool') || !mayCall()) {
    return {};
  }
  return { call: { name: tool.name, arguments: { [tool.path]: `${cwd}/${file}`, [tool.content]: content } } };
}

/** Writes the answer of a turn: SSE chunks when the request streams, one completion otherwise. */
export function writeChatAnswer(res: http.ServerResponse, body: Json, turn: ChatTurn, text: string, id: string): void {
  const model = typeof body.model === 'string' ? body.model : 'scripted';
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const finish = turn.call ? 'tool_calls' : 'stop';
  const args = turn.call ? JSON.stringify(turn.call.arguments) : '';
  const callId = `call_${id}`;
  if (body.stream !== true) {
    const message = turn.call
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: callId, type: 'function', function: { name: turn.call.name, arguments: args } }],
        }
      : { role: 'assistant', content: text };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
    return;
  }
  const chunk = (choices: Json[], extra: Json = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices,
    ...extra,
  });
  const deltas: Json[] = turn.call
    ? [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: turn.call.name, arguments: '' } }],
        },
        // The arguments arrive in pieces, as real models stream them.
        ...[args.slice(0, 12), args.slice(12)].map((piece) => ({
          tool_calls: [{ index: 0, function: { arguments: piece } }],
        })),
      ]
    : [{ role: 'assistant', content: '' }, { content: text }];
  const chunks = [
    ...deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: finish }]),
    // Asked for with stream_options.include_usage: a last chunk with no choices.
    chunk([], { usage }),
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`);
}
