// An OpenAI-compatible chat endpoint over a local GGUF model (node-llama-cpp, prebuilt, CPU only), made for the
// project's real-model tests: POST /v1/chat/completions (tools, streaming), GET /v1/models, GET /health, with CORS
// so the browser app can call it directly. Requests are served one at a time.
//
// Tool calls: when a request offers tools, the model must answer with one JSON object that a grammar built from
// the tools' parameter schemas enforces: {"kind": "call", "name": ..., "arguments": {...}} or
// {"kind": "reply", "text": ...}. The server turns it into `tool_calls` or `content`.
//
// Usage: node server.mjs MODEL.gguf PORT
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { getLlama, LlamaChatSession } from 'node-llama-cpp';

const [modelPath, portText = '8099'] = process.argv.slice(2);
if (!modelPath) {
  console.error('usage: node server.mjs MODEL.gguf PORT');
  process.exit(2);
}

const llama = await getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: 4096, threads: 1 });
const session = new LlamaChatSession({ contextSequence: context.getSequence() });

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': '*',
  'Access-Control-Max-Age': '600',
};

function plain(content) {
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : part?.text ?? '')).join('');
  return content ?? '';
}

/** The instructions that describe the offered tools and the JSON answer format. */
function toolInstructions(tools) {
  const lines = ['Tools you may call:'];
  for (const tool of tools) {
    const fn = tool.function ?? {};
    lines.push(`- ${fn.name}: ${fn.description ?? ''} Parameters (JSON schema): ${JSON.stringify(fn.parameters ?? {})}`);
  }
  lines.push(
    'Answer with exactly one JSON object.',
    'To call a tool: {"kind": "call", "name": "<tool>", "arguments": {...}}.',
    'To reply to the user: {"kind": "reply", "text": "<your reply>"}.',
    'Call a tool whenever one can compute what is asked and you do not have its result yet; once a result arrives, reply and use it.',
  );
  return lines.join('\n');
}

/** The grammar's JSON schema: a call to one of the tools, or a reply (a call only, when the request insists). */
function answerSchema(tools, toolChoice) {
  const forced = typeof toolChoice === 'object' ? toolChoice?.function?.name : undefined;
  const offered = tools.map((t) => t.function).filter((fn) => fn && (!forced || fn.name === forced));
  const calls = offered.map((fn) => ({
    type: 'object',
    properties: { kind: { const: 'call' }, name: { const: fn.name }, arguments: fn.parameters ?? { type: 'object' } },
    required: ['kind', 'name', 'arguments'],
    additionalProperties: false,
  }));
  const reply = { type: 'object', properties: { kind: { const: 'reply' }, text: { type: 'string' } }, required: ['kind', 'text'], additionalProperties: false };
  const options = toolChoice === 'required' || forced ? calls : [...calls, reply];
  return options.length === 1 ? options[0] : { oneOf: options };
}

/** Builds the session history from OpenAI messages; returns the history and the final user text. */
function historyOf(messages, tools) {
  const history = [];
  const callNames = new Map();
  let system = messages[0]?.role === 'system' ? plain(messages[0].content) : '';
  if (tools.length) system = [system, toolInstructions(tools)].filter(Boolean).join('\n\n');
  if (system) history.push({ type: 'system', text: system });
  for (const message of messages.slice(messages[0]?.role === 'system' ? 1 : 0)) {
    if (message.role === 'assistant') {
      const call = message.tool_calls?.[0];
      let text;
      if (call) {
        callNames.set(call.id, call.function?.name);
        let args = {};
        try { args = JSON.parse(call.function?.arguments || '{}'); } catch { args = {}; }
        text = JSON.stringify({ kind: 'call', name: call.function?.name, arguments: args });
      } else {
        text = tools.length ? JSON.stringify({ kind: 'reply', text: plain(message.content) }) : plain(message.content);
      }
      history.push({ type: 'model', response: [text] });
    } else if (message.role === 'tool') {
      const name = callNames.get(message.tool_call_id) ?? message.name ?? 'the tool';
      history.push({ type: 'user', text: `Result from ${name}: ${plain(message.content)}` });
    } else {
      history.push({ type: 'user', text: plain(message.content) });
    }
  }
  const last = history.length && history[history.length - 1].type === 'user' ? history.pop() : { type: 'user', text: '' };
  return { history, userText: last.text };
}

function countTokens(text) {
  return model.tokenize(text).length;
}

/** Runs one completion; `onText` (optional) receives text as it is generated (plain replies only). */
async function complete(body, onText) {
  const tools = body.tool_choice === 'none' ? [] : (body.tools ?? []);
  const { history, userText } = historyOf(body.messages ?? [], tools);
  session.setChatHistory(history);
  const options = { temperature: body.temperature ?? 0, maxTokens: Math.min(body.max_tokens ?? 512, 2048) };
  if (tools.length) options.grammar = await llama.createGrammarForJsonSchema(answerSchema(tools, body.tool_choice ?? 'auto'));
  else if (onText) options.onTextChunk = onText;
  const promptTokens = history.reduce((n, h) => n + countTokens(h.text ?? (h.response ?? []).join('')), 0) + countTokens(userText);
  const output = await session.prompt(userText, options);
  const completionTokens = countTokens(output);
  const message = { role: 'assistant', content: output };
  let finish = completionTokens >= options.maxTokens ? 'length' : 'stop';
  if (tools.length) {
    let parsed;
    try { parsed = JSON.parse(output); } catch { parsed = undefined; }
    if (parsed?.kind === 'call') {
      message.content = null;
      message.tool_calls = [{ id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`, type: 'function', function: { name: parsed.name, arguments: JSON.stringify(parsed.arguments ?? {}) } }];
      finish = 'tool_calls';
    } else if (parsed?.kind === 'reply') {
      message.content = parsed.text;
    }
  }
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'local',
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

function sendJson(res, status, value) {
  res.writeHead(status, { ...CORS, 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

let queue = Promise.resolve();

async function handleCompletion(res, body) {
  if (!body.stream) {
    sendJson(res, 200, await complete(body));
    return;
  }
  res.writeHead(200, { ...CORS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta, finish = null, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model ?? 'local', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  chunk({ role: 'assistant' });
  const result = await complete(body, (text) => chunk({ content: text }));
  const message = result.choices[0].message;
  if (message.tool_calls) {
    message.tool_calls.forEach((call, index) => chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }] }));
  } else if ((body.tools ?? []).length && body.tool_choice !== 'none' && message.content) {
    chunk({ content: message.content });
  }
  chunk({}, result.choices[0].finish_reason, { usage: result.usage });
  res.end('data: [DONE]\n\n');
}

http
  .createServer((req, res) => {
    const path = new URL(req.url, 'http://local').pathname;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { ok: true });
    if (req.method === 'GET' && path === '/v1/models') return sendJson(res, 200, { object: 'list', data: [{ id: 'local', object: 'model', owned_by: 'local' }] });
    if (req.method !== 'POST' || path !== '/v1/chat/completions') return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      queue = queue.then(async () => {
        let body;
        try {
          body = JSON.parse(Buffer.concat(parts).toString('utf8'));
        } catch (error) {
          return sendJson(res, 400, { error: { message: `malformed JSON: ${error.message}`, type: 'invalid_request_error' } });
        }
        try {
          await handleCompletion(res, body);
        } catch (error) {
          if (res.headersSent) res.end();
          else sendJson(res, 500, { error: { message: String(error?.message ?? error), type: 'server_error' } });
        }
      });
    });
  })
  .listen(Number(portText), '127.0.0.1', () => console.log(`serving on http://127.0.0.1:${portText}/v1`));
