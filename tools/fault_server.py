#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat endpoint that misbehaves on purpose, for the fault-injection and load tests.

Usage: python3 tools/fault_server.py [--delay-ms N] [--hang-secs S] [--mix SPEC --seed N --slow-ms N]
                                     [--faults on|off] [--no-cors]
Prints "PORT <n>" once listening on 127.0.0.1 (a free port), then serves until killed. It takes at least 64
concurrent connections (one thread each, a listen backlog of 256). Every reply carries CORS headers (and OPTIONS
preflights are answered) unless --no-cors, so a browser page on another origin can call it; --no-cors plays a
server that forbids browser calls. --faults off turns the first-attempt faults off.

POST /v1/chat/completions plays a tiny agent for prompts of the form
  "Define task_1_input = <x>.\nTask 1:\nCompute <expression in task_1_input> and call the result task_1_out.\n"
turn 1: a calculator call with the expression (x substituted); turn 2: a boxed answer from the tool result.
The first attempt of each (prompt, turn) may instead fail, chosen by a hash of the prompt:
429 with Retry-After: 1, 500, a hang past the client's timeout, a dropped connection, a malformed JSON body.
Some prompts get malformed tool arguments first, some get arguments as a JSON object, some a wrong answer.

With --mix, every request instead draws its fault at random (seeded by --seed) from percentages such as
  --mix 429=10,500=5,slow=5,truncated=3,drop=3,hang=1,badjson=1
where slow replies correctly after --slow-ms, truncated sends a full Content-Length but only half the body before
closing the connection, and the others are as above; the rest of the requests are answered at once.

GET /stats returns counters, the Authorization and x-api-key headers and the temperatures seen (so a test can
check what the client sent), the most
requests in flight at once, and the requests per sample (all of them, and those answered properly, slow ones
included, under "per_sample_ok"): a prompt that starts with "Case <n>." counts as sample
n, any other prompt under the first 12 hex digits of its SHA-256. "in_flight" is the requests being answered now.
A request with "stream": true gets its proper reply as server-sent events (the text in pieces, stream_gap_ms apart).
GET /v1/models lists one model. GET /control?delay_ms=N&faults=on|off&mix=SPEC&stream_gap_ms=N changes the delay
before normal replies (a slow endpoint), the first-attempt faults, the random mix (empty: none) and the gap
between streamed pieces while the server runs; GET /reset clears the counters.
Python 3 standard library only.
"""

import argparse
import base64
import hashlib
import json
import random
import re
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ATTEMPTS = {}
STATS = {"requests": 0, "faults": {}, "auth": [], "x_api_key": [], "temperatures": [], "max_in_flight": 0, "in_flight": 0, "per_sample": {}, "per_sample_ok": {}}
IN_FLIGHT = [0]
MIX = []  # (fault, cumulative percentage) when --mix is given
RNG = random.Random(0)
FAULTS = ("429", "500", "slow", "truncated", "drop", "hang", "badjson")


def bucket(text):
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % 100


def first_attempt_fault(h):
    if h < 8:
        return "429"
    if h < 16:
        return "500"
    if h < 20:
        return "hang"
    if h < 25:
        return "drop"
    if h < 30:
        return "badjson"
    return None


def parse_mix(spec):
    mix, total = [], 0.0
    for part in filter(None, spec.split(",")):
        name, _, share = part.partition("=")
        if name not in FAULTS:
            raise SystemExit("unknown fault %r in --mix (known: %s)" % (name, ", ".join(FAULTS)))
        total += float(share)
        mix.append((name, total))
    if total > 100:
        raise SystemExit("--mix adds up to more than 100%")
    return mix


def mixed_fault():
    with LOCK:
        x = RNG.random() * 100
    return next((name for name, upto in MIX if x < upto), None)


def sample_key(prompt):
    case = re.match(r"Case (\d+)\.", prompt)
    return case.group(1) if case else hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:12]


def completion(message, finish, prompt_tokens, completion_tokens):
    return {
        "id": "chatcmpl-fault",
        "object": "chat.completion",
        "model": "fault-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def expression_of(prompt):
    value = re.search(r"Define task_1_input = (-?\d+)\.", prompt)
    expr = re.search(r"Compute (.+?) and call the result task_1_out", prompt)
    if not value or not expr:
        return "1 + 1"
    return expr.group(1).replace("task_1_input", "(%s)" % value.group(1))


def text_of(content):
    """A message's text: its content, or the text parts of a content-part list (a message with pictures)."""
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content or ""


def picture_sizes(messages):
    """(width, height) of every PNG data URL sent as an image part; None for a part that is not a readable PNG."""
    sizes = []
    for m in messages:
        content = m.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "image_url":
                continue
            url = (part.get("image_url") or {}).get("url", "")
            try:
                png = base64.b64decode(url.split("base64,", 1)[1], validate=True)
                if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
                    raise ValueError("not a PNG")
                sizes.append(struct.unpack(">II", png[16:24]))
            except (IndexError, ValueError, struct.error):
                sizes.append(None)
    return sizes


def play(body, clean=False):
    """The reply to a chat-completions body. With clean=True the hashed wrong answers and malformed or object-typed
    tool arguments are skipped, so every prompt gets its correct answer (tools/provider_emulator.py uses that)."""
    messages = body.get("messages", [])
    prompt = next((text_of(m.get("content")) for m in messages if m.get("role") == "user"), "")
    sizes = picture_sizes(messages)
    if sizes:
        # No eyes here: say what arrived, so a client can check that its pictures were real PNGs of their size.
        seen = ", ".join("%dx%d PNG" % s if s else "unreadable image" for s in sizes)
        return completion({"role": "assistant", "content": "I received: %s." % seen}, "stop", 85 * len(sizes), 8)
    h = bucket(prompt)
    tools = [m for m in messages if m.get("role") == "tool"]
    prompt_tokens = sum(len(str(m.get("content") or "")) for m in messages) // 4 + 10
    good = [t for t in tools if str(t.get("content", "")).startswith("{\"results\"")]
    if good:
        results = json.loads(good[-1]["content"]).get("results", ["?"])
        answer = results[0]
        if h >= 90 and not clean:
            try:
                answer = str(int(answer) + 1)
            except ValueError:
                answer = answer + "1"
        text = "The calculator gives %s.\n\\boxed{task_1_out = %s}" % (results[0], answer)
        return completion({"role": "assistant", "content": text}, "stop", prompt_tokens, 12)
    call_id = "call_%d_%d" % (h, len(messages))
    if 35 <= h < 45 and not tools and not clean:
        arguments = "{\"expressions\": [\"" + expression_of(prompt)  # cut short: not JSON
    elif 45 <= h < 50 and not clean:
        arguments = {"expressions": [expression_of(prompt)]}  # an object, as some providers send
    else:
        arguments = json.dumps({"expressions": [expression_of(prompt)]})
    message = {"role": "assistant", "content": None,
               "tool_calls": [{"id": call_id, "type": "function",
                               "function": {"name": "calculator", "arguments": arguments}}]}
    return completion(message, "tool_calls", prompt_tokens, 9)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    delay = 0.0
    hang = 3.0
    slow = 0.4
    faults = True
    cors = True
    stream_gap = 0.0

    def log_message(self, *args):
        pass

    def send_json(self, status, payload, extra=None):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_cors()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, reply):
        """Sends `reply` as server-sent events: its text in pieces of 8 characters, --stream-gap-ms apart, then its
        tool calls, then the finish reason with the usage, then [DONE] (the connection closes at the end)."""
        message = reply["choices"][0]["message"]
        self.close_connection = True
        self.send_response(200)
        self.send_cors()
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

        def event(delta, finish=None, usage=None):
            chunk = {"id": "chatcmpl-fault", "object": "chat.completion.chunk", "model": "fault-model",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage:
                chunk["usage"] = usage
            self.wfile.write(("data: %s\n\n" % json.dumps(chunk)).encode("utf-8"))
            self.wfile.flush()

        event({"role": "assistant"})
        text = message.get("content") or ""
        for at in range(0, len(text), 8):
            event({"content": text[at:at + 8]})
            time.sleep(Handler.stream_gap)
        for index, call in enumerate(message.get("tool_calls") or []):
            arguments = call["function"]["arguments"]
            event({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                   "function": {"name": call["function"]["name"],
                                                "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)}}]})
        event({}, reply["choices"][0]["finish_reason"], reply["usage"])
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def send_cors(self):
        if Handler.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Headers", "authorization, content-type, x-api-key, anthropic-dangerous-direct-browser-access")
            self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
            self.send_header("Access-Control-Expose-Headers", "Retry-After")

    def do_OPTIONS(self):
        self.send_response(204)
        self.send_cors()
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        query = dict(p.split("=", 1) for p in self.path.partition("?")[2].split("&") if "=" in p)
        if self.path.startswith("/stats"):
            with LOCK:
                self.send_json(200, STATS)
        elif self.path.startswith("/v1/models"):
            self.send_json(200, {"object": "list", "data": [{"id": "fault-model", "object": "model"}]})
        elif self.path.startswith("/control"):
            if "delay_ms" in query:
                Handler.delay = float(query["delay_ms"]) / 1000.0
            if "stream_gap_ms" in query:
                Handler.stream_gap = float(query["stream_gap_ms"]) / 1000.0
            if "faults" in query:
                Handler.faults = query["faults"] == "on"
            if "mix" in query:
                mix = parse_mix(urllib.parse.unquote(query["mix"]))
                with LOCK:
                    MIX[:] = mix
            self.send_json(200, {"delay_ms": Handler.delay * 1000.0, "faults": Handler.faults, "mix": MIX})
        elif self.path.startswith("/reset"):
            with LOCK:
                STATS.update({"requests": 0, "faults": {}, "auth": [], "x_api_key": [], "temperatures": [], "max_in_flight": 0, "per_sample": {}, "per_sample_ok": {}})
                ATTEMPTS.clear()
            self.send_json(200, {"reset": True})
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.startswith("/v1/chat/completions"):
            self.send_json(404, {"error": {"message": "not found"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self.send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        messages = body.get("messages", [])
        prompt = next((text_of(m.get("content")) for m in messages if m.get("role") == "user"), "")
        key = hashlib.sha256((prompt + "|%d" % len(messages)).encode("utf-8")).hexdigest()
        with LOCK:
            STATS["requests"] += 1
            auth = self.headers.get("Authorization")
            if auth and auth not in STATS["auth"]:
                STATS["auth"].append(auth)
            extra = self.headers.get("x-api-key")
            if extra and extra not in STATS["x_api_key"]:
                STATS["x_api_key"].append(extra)
            if body.get("temperature") not in STATS["temperatures"]:
                STATS["temperatures"].append(body.get("temperature"))
            sample = sample_key(prompt)
            STATS["per_sample"][sample] = STATS["per_sample"].get(sample, 0) + 1
            ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
            attempt = ATTEMPTS[key]
            IN_FLIGHT[0] += 1
            STATS["in_flight"] = IN_FLIGHT[0]
            STATS["max_in_flight"] = max(STATS["max_in_flight"], IN_FLIGHT[0])
        try:
            self.answer(body, prompt, messages, attempt)
        finally:
            with LOCK:
                IN_FLIGHT[0] -= 1
                STATS["in_flight"] = IN_FLIGHT[0]

    def answer(self, body, prompt, messages, attempt):
        if MIX:
            fault = mixed_fault()
        else:
            fault = first_attempt_fault(bucket(prompt + "|%d" % len(messages))) if attempt == 1 and Handler.faults else None
        if fault:
            with LOCK:
                STATS["faults"][fault] = STATS["faults"].get(fault, 0) + 1
        if fault == "429":
            self.send_json(429, {"error": {"message": "rate limited"}}, {"Retry-After": "1"})
        elif fault == "500":
            self.send_json(500, {"error": {"message": "internal error"}})
        elif fault == "hang":
            time.sleep(self.hang)
            self.close_connection = True
            try:
                self.send_json(200, play(body))
            except OSError:
                pass
        elif fault == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        elif fault == "truncated":
            data = json.dumps(play(body)).encode("utf-8")
            self.close_connection = True
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        elif fault == "badjson":
            self.send_json(200, b"{\"choices\": [{\"message\": {\"content\": \"trunc")
        else:
            if fault == "slow":
                time.sleep(self.slow)
            elif Handler.delay:
                time.sleep(Handler.delay)
            with LOCK:
                sample = sample_key(prompt)
                STATS["per_sample_ok"][sample] = STATS["per_sample_ok"].get(sample, 0) + 1
            try:
                if body.get("stream"):
                    self.send_stream(play(body))
                else:
                    self.send_json(200, play(body))
            except OSError:
                pass  # the client gave up (a stopped run aborts its request)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--hang-secs", type=float, default=3.0)
    parser.add_argument("--mix", default="", help="random faults per request, e.g. 429=10,500=5,slow=5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow-ms", type=float, default=400.0)
    parser.add_argument("--faults", choices=["on", "off"], default="on")
    parser.add_argument("--no-cors", action="store_true")
    args = parser.parse_args()
    Handler.faults = args.faults == "on"
    Handler.cors = not args.no_cors
    Handler.delay = args.delay_ms / 1000.0
    Handler.hang = args.hang_secs
    Handler.slow = args.slow_ms / 1000.0
    MIX.extend(parse_mix(args.mix))
    RNG.seed(args.seed)
    server = Server(("127.0.0.1", 0), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
