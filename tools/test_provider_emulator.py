#!/usr/bin/env python3
"""Tests of tools/provider_emulator.py: starts it on a free port and checks each documented behaviour with urllib
(status, body, headers). Run: python3 tools/test_provider_emulator.py"""

import ast
import email.utils
import json
import operator
import os
import re
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
KEY = "test-key"
PROMPT = "Define task_1_input = %d.\nTask 1:\nCompute task_1_input * 3 + 4 and call the result task_1_out.\n"
TOOLS = [{"type": "function", "function": {"name": "calculator", "description": "Evaluates arithmetic.",
                                            "parameters": {"type": "object", "properties": {
                                                "expressions": {"type": "array", "items": {"type": "string"}}}}}}]
ANTHROPIC_TOOLS = [{"name": "calculator", "description": "Evaluates arithmetic.",
                    "input_schema": TOOLS[0]["function"]["parameters"]}]
LONG_SYSTEM = "You are a careful assistant who checks every step. " * 200  # ~10000 characters, ~2500 tokens

# provider -> (chat path, model, auth headers)
CHAT = {
    "openai": ("/openai/v1/chat/completions", "gpt-4o-mini", {"Authorization": "Bearer " + KEY}),
    "azure": ("/azure/openai/deployments/chat/chat/completions?api-version=2024-10-21", "ignored",
              {"api-key": KEY}),
    "anthropic": ("/anthropic/v1/chat/completions", "claude-sonnet-4-20250514", {"Authorization": "Bearer " + KEY}),
    "gemini": ("/gemini/v1beta/openai/chat/completions", "gemini-2.5-flash", {"Authorization": "Bearer " + KEY}),
    "openrouter": ("/openrouter/api/v1/chat/completions", "openai/gpt-4o-mini", {"Authorization": "Bearer " + KEY}),
    "together": ("/together/v1/chat/completions", "meta-llama/Llama-3.3-70B-Instruct-Turbo",
                 {"Authorization": "Bearer " + KEY}),
    "groq": ("/groq/openai/v1/chat/completions", "llama-3.3-70b-versatile", {"Authorization": "Bearer " + KEY}),
    "deepseek": ("/deepseek/v1/chat/completions", "deepseek-chat", {"Authorization": "Bearer " + KEY}),
    "mistral": ("/mistral/v1/chat/completions", "mistral-small-latest", {"Authorization": "Bearer " + KEY}),
    "xai": ("/xai/v1/chat/completions", "grok-3-mini", {"Authorization": "Bearer " + KEY}),
    "vllm": ("/vllm/v1/chat/completions", "Qwen/Qwen2.5-7B-Instruct", {"Authorization": "Bearer " + KEY}),
    "sglang": ("/sglang/v1/chat/completions", "default", {"Authorization": "Bearer " + KEY}),
    "ollama": ("/ollama/v1/chat/completions", "llama3.2:latest", {}),
    "llamacpp": ("/llamacpp/v1/chat/completions", "model.gguf", {"Authorization": "Bearer " + KEY}),
    "lmstudio": ("/lmstudio/v1/chat/completions", "qwen2.5-7b-instruct", {}),
}
NATIVE = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}

OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
       ast.Mod: operator.mod, ast.USub: operator.neg, ast.UAdd: operator.pos}


def calculate(expression):
    """The calculator tool, for the integer arithmetic the prompts use."""
    def value(node):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in OPS:
            return OPS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in OPS:
            return OPS[type(node.op)](value(node.operand))
        raise ValueError("not arithmetic: %r" % expression)
    return str(value(ast.parse(expression, mode="eval")))


class Emulator:
    def __init__(self, *args):
        self.process = subprocess.Popen([sys.executable, os.path.join(HERE, "provider_emulator.py"), *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.match(r"PORT (\d+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError("the emulator did not start: %r %s" % (line, self.process.stderr.read()))
        self.base = "http://127.0.0.1:%s" % match.group(1)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.process.stdout.close()
        self.process.stderr.close()

    def call(self, method, path, body=None, headers=None, raw=None):
        """(status, lower-cased headers, decoded JSON body or raw bytes)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=dict(headers or {}))
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, head, payload = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, head, payload = error.code, error.headers, error.read()
        head = {k.lower(): v for k, v in head.items()}
        if head.get("content-type", "").startswith("application/json") and payload:
            payload = json.loads(payload)
        return status, head, payload


class EmulatorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emu = Emulator("--no-cors-for", "mistral")

    @classmethod
    def tearDownClass(cls):
        cls.emu.stop()

    def setUp(self):
        self.emu.call("GET", "/reset")

    def call(self, *args, **kwargs):
        return self.emu.call(*args, **kwargs)

    def chat(self, provider, body=None, headers=None, **extra):
        path, model, auth = CHAT[provider]
        body = dict(body or {"model": model, "messages": [{"role": "user", "content": PROMPT % 7}], "tools": TOOLS})
        body.update(extra)
        return self.call("POST", path, body, dict(auth, **(headers or {})))

    def solve_chat(self, provider, x, **extra):
        """Runs the two turns through chat completions and returns the final answer text."""
        path, model, auth = CHAT[provider]
        messages = [{"role": "user", "content": PROMPT % x}]
        status, _, reply = self.call("POST", path, dict({"model": model, "messages": messages, "tools": TOOLS},
                                                        **extra), auth)
        self.assertEqual(status, 200, reply)
        message = reply["choices"][0]["message"]
        self.assertEqual(reply["choices"][0]["finish_reason"], "tool_calls")
        call = message["tool_calls"][0]
        self.assertEqual(call["function"]["name"], "calculator")
        arguments = json.loads(call["function"]["arguments"])  # always a JSON string on the clean path
        results = [calculate(e) for e in arguments["expressions"]]
        messages += [message, {"role": "tool", "tool_call_id": call["id"], "content": json.dumps({"results": results})}]
        status, _, reply = self.call("POST", path, dict({"model": model, "messages": messages, "tools": TOOLS},
                                                        **extra), auth)
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["choices"][0]["finish_reason"], "stop")
        return reply["choices"][0]["message"]["content"]

    def messages(self, body, headers=None):
        return self.call("POST", "/anthropic/v1/messages", body, dict(NATIVE, **(headers or {})))

    # --- answers --------------------------------------------------------------------------------------------------

    def test_every_provider_answers_correctly_after_the_tool_turn(self):
        for provider in CHAT:
            with self.subTest(provider=provider):
                self.assertIn("\\boxed{task_1_out = 25}", self.solve_chat(provider, 7))

    def test_no_hashed_faults_on_any_prompt(self):
        for x in range(-20, 40):
            with self.subTest(x=x):
                self.assertIn("\\boxed{task_1_out = %d}" % (3 * x + 4), self.solve_chat("openai", x))

    def test_anthropic_messages_tool_loop(self):
        messages = [{"role": "user", "content": [{"type": "text", "text": PROMPT % 11}]}]
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 1024,
                                          "system": "Be brief.", "messages": messages, "tools": ANTHROPIC_TOOLS})
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["type"], "message")
        self.assertEqual(reply["stop_reason"], "tool_use")
        use = [b for b in reply["content"] if b["type"] == "tool_use"][0]
        self.assertTrue(use["id"].startswith("toolu_"))
        result = json.dumps({"results": [calculate(e) for e in use["input"]["expressions"]]})
        messages += [{"role": "assistant", "content": reply["content"]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"],
                                                   "content": result}]}]
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 1024,
                                          "messages": messages, "tools": ANTHROPIC_TOOLS})
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["stop_reason"], "end_turn")
        self.assertEqual(reply["content"][0]["type"], "text")
        self.assertIn("\\boxed{task_1_out = 37}", reply["content"][0]["text"])
        for field in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            self.assertIsInstance(reply["usage"][field], int)

    def test_anthropic_thinking_block_first(self):
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 4096,
                                          "thinking": {"type": "enabled", "budget_tokens": 2048},
                                          "messages": [{"role": "user", "content": PROMPT % 2}],
                                          "tools": ANTHROPIC_TOOLS})
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["content"][0]["type"], "thinking")
        self.assertTrue(reply["content"][0]["signature"])
        self.assertEqual(reply["content"][1]["type"], "tool_use")

    def test_anthropic_max_tokens_stop_reason(self):
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 2,
                                          "messages": [{"role": "user", "content": PROMPT % 2}],
                                          "tools": ANTHROPIC_TOOLS})
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["stop_reason"], "max_tokens")

    def test_images_reach_the_agent_through_messages(self):
        png = ("iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEElEQVR4nGNgYGD4z8DAAAAFAAH/"
               "Vv+6jQAAAABJRU5ErkJggg==")
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 100, "messages": [
            {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                      "data": png}},
                                         {"type": "text", "text": "What is this?"}]}]})
        self.assertEqual(status, 200, reply)
        self.assertIn("2x3 PNG", reply["content"][0]["text"])

    def test_models_lists(self):
        for provider, path in [(p, CHAT[p][0].replace("/chat/completions", "/models")) for p in CHAT]:
            with self.subTest(provider=provider):
                status, _, reply = self.call("GET", path, headers=CHAT[provider][2])
                self.assertEqual(status, 200, reply)
                self.assertTrue(reply["data"])
                self.assertTrue(all("id" in m for m in reply["data"]))
        status, _, reply = self.call("GET", "/gemini/v1beta/openai/models", headers=CHAT["gemini"][2])
        self.assertTrue(reply["data"][0]["id"].startswith("models/"))

    # --- auth -----------------------------------------------------------------------------------------------------

    def test_wrong_key_per_provider(self):
        expected = {"openai": 401, "azure": 401, "anthropic": 401, "gemini": 400, "openrouter": 401,
                    "together": 401, "groq": 401, "deepseek": 401, "mistral": 401, "xai": 400, "vllm": 401,
                    "sglang": 401, "llamacpp": 401}
        for provider, status in expected.items():
            with self.subTest(provider=provider):
                header = "api-key" if provider == "azure" else "Authorization"
                value = "wrong-key-0000" if provider == "azure" else "Bearer wrong-key-0000"
                got, _, body = self.chat(provider, headers={header: value})
                self.assertEqual(got, status, body)
        self.assertEqual(self.chat("openai", headers={"Authorization": "Bearer wrong-key-0000"})[2]["error"]["code"],
                         "invalid_api_key")
        self.assertEqual(self.chat("groq", headers={"Authorization": "Bearer x"})[2],
                         {"error": {"message": "Invalid API Key", "type": "invalid_request_error",
                                    "code": "invalid_api_key"}})
        self.assertEqual(self.chat("gemini", headers={"Authorization": "Bearer x"})[2][0]["error"]["details"][0]
                         ["reason"], "API_KEY_INVALID")
        self.assertEqual(self.chat("vllm", headers={"Authorization": "Bearer x"})[2], {"error": "Unauthorized"})
        self.assertIn("Access denied", self.chat("azure", headers={"api-key": "x"})[2]["error"]["message"])
        self.assertEqual(self.chat("deepseek", headers={"Authorization": "Bearer x"})[2]["error"]["type"],
                         "authentication_error")

    def test_missing_key(self):
        status, _, body = self.call("POST", CHAT["openai"][0], {"model": "gpt-4o-mini", "messages": []})
        self.assertEqual(status, 401)
        self.assertIn("You didn't provide an API key", body["error"]["message"])
        status, _, body = self.call("POST", CHAT["openrouter"][0], {"model": "x", "messages": []})
        self.assertEqual((status, body), (401, {"error": {"message": "No auth credentials found", "code": 401}}))

    def test_open_auth_for_local_servers(self):
        self.assertEqual(self.chat("ollama")[0], 200)
        self.assertEqual(self.chat("lmstudio", headers={"Authorization": "Bearer anything"})[0], 200)

    def test_azure_rules(self):
        body = {"messages": [{"role": "user", "content": PROMPT % 1}]}
        status, _, reply = self.call("POST", "/azure/openai/deployments/chat/chat/completions", body, {"api-key": KEY})
        self.assertEqual((status, reply), (404, {"error": {"code": "404", "message": "Resource not found"}}))
        status, _, reply = self.call("POST", "/azure/openai/deployments/nope/chat/completions?api-version=2024-10-21",
                                     body, {"api-key": KEY})
        self.assertEqual(status, 404)
        self.assertEqual(reply["error"]["code"], "DeploymentNotFound")
        status, _, reply = self.call("POST", "/azure/openai/deployments/chat/chat/completions?api-version=2024-10-21",
                                     body, {"Authorization": "Bearer " + KEY})
        self.assertEqual(status, 401, "Azure reads the api-key header, not a Bearer key")
        status, _, reply = self.call("POST", "/azure/openai/deployments/chat/chat/completions?api-version=2024-10-21",
                                     body, {"api-key": KEY})
        self.assertEqual(status, 200)
        self.assertEqual(reply["model"], "gpt-4o-mini")

    def test_anthropic_native_headers(self):
        body = {"model": "claude-sonnet-4-20250514", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
        status, _, reply = self.call("POST", "/anthropic/v1/messages", body, {"anthropic-version": "2023-06-01"})
        self.assertEqual(status, 401)
        self.assertEqual(reply["error"], {"type": "authentication_error", "message": "x-api-key header is required"})
        status, _, reply = self.call("POST", "/anthropic/v1/messages", body,
                                     {"x-api-key": "bad", "anthropic-version": "2023-06-01"})
        self.assertEqual((status, reply["error"]["message"]), (401, "invalid x-api-key"))
        status, _, reply = self.call("POST", "/anthropic/v1/messages", body, {"x-api-key": KEY})
        self.assertEqual(status, 400)
        self.assertEqual(reply["error"]["message"], "anthropic-version: header is required")
        self.assertEqual(reply["type"], "error")
        self.assertTrue(reply["request_id"].startswith("req_"))
        # The compat layer takes Bearer or x-api-key.
        self.assertEqual(self.chat("anthropic", headers={"Authorization": ""})[0], 401)
        self.assertEqual(self.chat("anthropic", headers={"Authorization": "", "x-api-key": KEY})[0], 200)

    # --- CORS -----------------------------------------------------------------------------------------------------

    def test_anthropic_browser_rule(self):
        body = {"model": "claude-sonnet-4-20250514", "max_tokens": 100,
                "messages": [{"role": "user", "content": PROMPT % 3}]}
        origin = {"Origin": "http://127.0.0.1:8080"}
        status, head, reply = self.messages(body, origin)
        self.assertEqual(status, 401)
        self.assertEqual(reply["error"]["message"],
                         "CORS requests must set 'anthropic-dangerous-direct-browser-access' header")
        self.assertNotIn("access-control-allow-origin", head)
        status, head, reply = self.messages(body, dict(origin, **{"anthropic-dangerous-direct-browser-access": "true"}))
        self.assertEqual(status, 200, reply)
        self.assertEqual(head["access-control-allow-origin"], "*")
        status, head, _ = self.call("OPTIONS", "/anthropic/v1/messages", headers=dict(origin, **{
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-api-key,anthropic-version,content-type,"
                                              "anthropic-dangerous-direct-browser-access"}))
        self.assertEqual(status, 204)
        self.assertEqual(head["access-control-allow-origin"], "*")
        self.assertIn("anthropic-dangerous-direct-browser-access", head["access-control-allow-headers"])
        self.assertIn("POST", head["access-control-allow-methods"])
        # The compat route follows the same rule.
        self.assertEqual(self.chat("anthropic", headers=origin)[0], 401)
        records = self.call("GET", "/stats")[2]["requests"]
        self.assertEqual(records[0]["origin"], "http://127.0.0.1:8080")
        self.assertFalse(records[0]["browser_header"])
        self.assertTrue(records[1]["browser_header"])

    def test_cors_headers_per_provider(self):
        origin = {"Origin": "http://127.0.0.1:8080"}
        status, head, _ = self.chat("openai", headers=origin)
        self.assertEqual((status, head.get("access-control-allow-origin")), (200, "*"))
        self.assertIn("retry-after", head["access-control-expose-headers"])
        status, head, _ = self.chat("mistral", headers=origin)  # --no-cors-for mistral
        self.assertEqual(status, 200)
        self.assertNotIn("access-control-allow-origin", head)
        status, head, _ = self.call("OPTIONS", CHAT["mistral"][0], headers=dict(origin, **{
            "Access-Control-Request-Method": "POST"}))
        self.assertNotIn("access-control-allow-origin", head)
        status, head, _ = self.chat("lmstudio", headers=origin)  # CORS off unless --cors-for lmstudio
        self.assertEqual(status, 200)
        self.assertNotIn("access-control-allow-origin", head)
        status, head, _ = self.chat("llamacpp", headers=origin)
        self.assertEqual((status, head["access-control-allow-origin"]), (200, "http://127.0.0.1:8080"))
        status, head, _ = self.call("OPTIONS", CHAT["azure"][0], headers=dict(origin, **{
            "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "api-key,content-type"}))
        self.assertEqual((status, head["access-control-allow-headers"]), (204, "api-key,content-type"))

    def test_ollama_origins(self):
        status, head, body = self.chat("ollama", headers={"Origin": "https://evil.example"})
        self.assertEqual((status, body), (403, b""))
        self.assertNotIn("access-control-allow-origin", head)
        status, head, _ = self.call("OPTIONS", CHAT["ollama"][0], headers={"Origin": "https://evil.example",
                                                                          "Access-Control-Request-Method": "POST"})
        self.assertEqual(status, 403)
        status, head, _ = self.chat("ollama", headers={"Origin": "http://localhost:5173"})
        self.assertEqual((status, head["access-control-allow-origin"]), (200, "http://localhost:5173"))

    # --- parameter rules ------------------------------------------------------------------------------------------

    def test_openai_reasoning_rules_in_order(self):
        base = {"model": "gpt-5-mini", "messages": [{"role": "user", "content": PROMPT % 5}]}
        cases = [
            ({"max_tokens": 100, "temperature": 0.2, "top_p": 0.5}, "max_tokens", "unsupported_parameter",
             "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' "
             "instead."),
            ({"temperature": 0.2, "top_p": 0.5}, "temperature", "unsupported_value",
             "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is "
             "supported."),
            ({"temperature": 1, "top_p": 1}, "top_p", "unsupported_parameter",
             "Unsupported parameter: 'top_p' is not supported with this model."),
        ]
        for path, auth in [(CHAT["openai"][0], CHAT["openai"][2]),
                           ("/azure/openai/deployments/reasoning/chat/completions?api-version=2024-10-21",
                            {"api-key": KEY})]:
            for extra, param, code, message in cases:
                with self.subTest(path=path, param=param):
                    status, _, reply = self.call("POST", path, dict(base, **extra), auth)
                    self.assertEqual(status, 400)
                    self.assertEqual(reply, {"error": {"message": message, "type": "invalid_request_error",
                                                       "param": param, "code": code}})
            status, _, reply = self.call("POST", path, dict(base, temperature=1, max_completion_tokens=5000), auth)
            self.assertEqual(status, 200, reply)
        # Non-reasoning models take all three.
        status, _, _ = self.chat("openai", max_tokens=100, temperature=0.2, top_p=0.5)
        self.assertEqual(status, 200)

    def test_completion_caps(self):
        messages = [{"role": "user", "content": PROMPT % 5}]
        cases = [
            ("openai", {"model": "gpt-4o-mini", "max_tokens": 20000}, "at most 16384 completion tokens"),
            ("openai", {"model": "gpt-4o", "max_tokens": 16385}, "at most 16384 completion tokens"),
            ("openai", {"model": "gpt-4.1-mini", "max_completion_tokens": 40000}, "at most 32768 completion tokens"),
            ("openai", {"model": "gpt-5", "max_completion_tokens": 200000}, "at most 128000 completion tokens"),
            ("deepseek", {"model": "deepseek-chat", "max_tokens": 9000}, "the valid range of max_tokens is [1, 8192]"),
            ("groq", {"model": "llama-3.3-70b-versatile", "max_tokens": 40000},
             "`max_tokens` must be less than or equal to `32768`"),
            ("anthropic", {"model": "claude-sonnet-4-20250514", "max_tokens": 100000},
             "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for "
             "claude-sonnet-4-20250514"),
        ]
        for provider, extra, text in cases:
            with self.subTest(provider=provider, extra=extra):
                status, _, reply = self.call("POST", CHAT[provider][0], dict(extra, messages=messages),
                                             CHAT[provider][2])
                self.assertEqual(status, 400, reply)
                self.assertIn(text, reply["error"]["message"])
        status, _, reply = self.call("POST", CHAT["openai"][0], {"model": "gpt-4o-mini", "max_tokens": 20000,
                                                                 "messages": messages}, CHAT["openai"][2])
        self.assertEqual(reply["error"]["message"], "max_tokens is too large: 20000. This model supports at most "
                         "16384 completion tokens, whereas you provided 20000.")
        self.assertEqual(reply["error"]["param"], "max_tokens")
        status, _, reply = self.messages({"model": "claude-opus-4-1-20250805", "max_tokens": 32001,
                                          "messages": messages})
        self.assertEqual(status, 400)
        self.assertEqual(reply["error"]["message"], "max_tokens: 32001 > 32000, which is the maximum allowed number "
                         "of output tokens for claude-opus-4-1-20250805")
        status, _, reply = self.messages({"model": "claude-3-5-haiku-20241022", "max_tokens": 8193,
                                          "messages": messages})
        self.assertIn("> 8192", reply["error"]["message"])
        # At the cap is fine.
        self.assertEqual(self.call("POST", CHAT["openai"][0], {"model": "gpt-4o-mini", "max_tokens": 16384,
                                                               "messages": messages}, CHAT["openai"][2])[0], 200)

    def test_vllm_context_length(self):
        messages = [{"role": "user", "content": PROMPT % 5}]
        status, _, reply = self.call("POST", CHAT["vllm"][0], {"model": "m", "max_tokens": 32760,
                                                               "messages": messages}, CHAT["vllm"][2])
        self.assertEqual(status, 400)
        self.assertEqual(reply["error"]["type"], "BadRequestError")
        self.assertEqual(reply["error"]["code"], 400)
        self.assertRegex(reply["error"]["message"], r"^This model's maximum context length is 32768 tokens\. However, "
                         r"you requested \d+ tokens \(\d+ in the messages, 32760 in the completion\)\.")
        self.assertEqual(self.call("POST", CHAT["vllm"][0], {"model": "m", "max_tokens": 1000, "messages": messages},
                                   CHAT["vllm"][2])[0], 200)

    def test_anthropic_native_validation(self):
        messages = [{"role": "user", "content": PROMPT % 5}]
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "messages": messages})
        self.assertEqual((status, reply["error"]["message"]), (400, "max_tokens: Field required"))
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 100, "temperature": 1.5,
                                          "messages": messages})
        self.assertEqual((status, reply["error"]["type"]), (400, "invalid_request_error"))
        self.assertEqual(reply["error"]["message"], "temperature: range: 0..1")
        status, _, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 1000,
                                          "thinking": {"type": "enabled", "budget_tokens": 1024},
                                          "messages": messages})
        self.assertEqual(status, 400)
        self.assertIn("`max_tokens` must be greater than `thinking.budget_tokens`", reply["error"]["message"])
        # The compat layer caps the temperature at 1 instead.
        status, _, reply = self.chat("anthropic", temperature=1.5)
        self.assertEqual(status, 200, reply)

    def test_bad_json(self):
        status, _, reply = self.call("POST", CHAT["openai"][0], raw=b"{nope", headers=CHAT["openai"][2])
        self.assertEqual(status, 400)
        self.assertTrue(reply["error"]["message"].startswith("We could not parse the JSON body of your request."))
        status, _, reply = self.call("POST", "/anthropic/v1/messages", raw=b"{nope", headers=NATIVE)
        self.assertEqual(status, 400)
        self.assertTrue(reply["error"]["message"].startswith("The request body is not valid JSON: "))
        status, _, reply = self.call("POST", CHAT["gemini"][0], raw=b"[1, 2]", headers=CHAT["gemini"][2])
        self.assertEqual((status, reply[0]["error"]["status"]), (400, "INVALID_ARGUMENT"))
        for provider in CHAT:
            with self.subTest(provider=provider):
                path, _, auth = CHAT[provider]
                self.assertEqual(self.call("POST", path, raw=b"not json", headers=auth)[0], 400)

    # --- usage ----------------------------------------------------------------------------------------------------

    def test_openai_cached_and_reasoning_tokens(self):
        messages = [{"role": "system", "content": LONG_SYSTEM}, {"role": "user", "content": PROMPT % 4}]
        first = self.chat("openai", {"model": "gpt-5-mini", "messages": messages, "tools": TOOLS})[2]
        self.assertEqual(first["usage"]["prompt_tokens_details"]["cached_tokens"], 0)
        reasoning = first["usage"]["completion_tokens_details"]["reasoning_tokens"]
        self.assertGreater(reasoning, 0)
        self.assertGreater(first["usage"]["completion_tokens"], reasoning)
        second = self.chat("openai", {"model": "gpt-5-mini", "messages": messages + [
            {"role": "assistant", "content": "Working on it."}, {"role": "user", "content": "Go on."}],
            "tools": TOOLS})[2]
        cached = second["usage"]["prompt_tokens_details"]["cached_tokens"]
        self.assertGreaterEqual(cached, 1024)
        self.assertEqual((cached - 1024) % 128, 0)
        self.assertLessEqual(cached, second["usage"]["prompt_tokens"])
        short = self.chat("openai")[2]  # under 1024 tokens: never cached
        self.assertEqual(short["usage"]["prompt_tokens_details"]["cached_tokens"], 0)
        self.assertEqual(short["usage"]["completion_tokens_details"]["reasoning_tokens"], 0)

    def test_reasoning_limit_cuts_the_reply(self):
        status, _, reply = self.chat("openai", {"model": "o4-mini", "messages": [
            {"role": "user", "content": PROMPT % 4}], "tools": TOOLS}, max_completion_tokens=5)
        self.assertEqual(status, 200)
        self.assertEqual(reply["choices"][0]["finish_reason"], "length")
        self.assertEqual(reply["usage"]["completion_tokens"], 5)

    def test_deepseek_cache_fields(self):
        messages = [{"role": "system", "content": LONG_SYSTEM}, {"role": "user", "content": PROMPT % 4}]
        self.chat("deepseek", {"model": "deepseek-chat", "messages": messages})
        usage = self.chat("deepseek", {"model": "deepseek-chat", "messages": messages + [
            {"role": "user", "content": "More."}]})[2]["usage"]
        self.assertGreater(usage["prompt_cache_hit_tokens"], 0)
        self.assertEqual(usage["prompt_cache_hit_tokens"] % 64, 0)
        self.assertEqual(usage["prompt_cache_hit_tokens"] + usage["prompt_cache_miss_tokens"], usage["prompt_tokens"])
        reply = self.chat("deepseek", {"model": "deepseek-reasoner", "messages": messages})[2]
        self.assertTrue(reply["choices"][0]["message"]["reasoning_content"])
        self.assertGreater(reply["usage"]["completion_tokens_details"]["reasoning_tokens"], 0)

    def test_anthropic_prompt_cache(self):
        system = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]
        body = {"model": "claude-sonnet-4-20250514", "max_tokens": 1024, "system": system,
                "messages": [{"role": "user", "content": PROMPT % 8}], "tools": ANTHROPIC_TOOLS}
        first = self.messages(body)[2]["usage"]
        self.assertGreater(first["cache_creation_input_tokens"], 1000)
        self.assertEqual(first["cache_read_input_tokens"], 0)
        second = self.messages(dict(body, messages=[{"role": "user", "content": PROMPT % 9}]))[2]["usage"]
        self.assertEqual(second["cache_read_input_tokens"], first["cache_creation_input_tokens"])
        self.assertEqual(second["cache_creation_input_tokens"], 0)
        self.assertGreater(second["input_tokens"], 0)
        plain = self.messages(dict(body, system=LONG_SYSTEM))[2]["usage"]  # no breakpoint: no caching
        self.assertEqual((plain["cache_read_input_tokens"], plain["cache_creation_input_tokens"]), (0, 0))

    # --- streaming ------------------------------------------------------------------------------------------------

    def sse_events(self, payload):
        return [json.loads(line[6:]) for line in payload.decode().splitlines()
                if line.startswith("data: ") and line != "data: [DONE]"]

    def test_chat_stream_with_usage(self):
        status, head, payload = self.chat("groq", stream=True, stream_options={"include_usage": True})
        self.assertEqual(status, 200)
        self.assertTrue(head["content-type"].startswith("text/event-stream"))
        self.assertTrue(payload.decode().rstrip().endswith("data: [DONE]"))
        chunks = self.sse_events(payload)
        self.assertEqual(chunks[-1]["choices"], [])
        self.assertGreater(chunks[-1]["usage"]["total_tokens"], 0)
        self.assertTrue(all(c["usage"] is None for c in chunks[:-1]))
        arguments = "".join(c["choices"][0]["delta"].get("tool_calls", [{}])[0].get("function", {})
                            .get("arguments", "") for c in chunks[:-1])
        self.assertEqual(json.loads(arguments), {"expressions": ["(7) * 3 + 4"]})
        self.assertEqual(chunks[-2]["choices"][0]["finish_reason"], "tool_calls")
        status, _, payload = self.chat("openai", stream=True)
        self.assertTrue(all("usage" not in c for c in self.sse_events(payload)))

    def test_anthropic_stream_events(self):
        status, head, payload = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 1024,
                                               "stream": True, "thinking": {"type": "enabled", "budget_tokens": 500},
                                               "messages": [{"role": "user", "content": PROMPT % 4}],
                                               "tools": ANTHROPIC_TOOLS})
        self.assertEqual(status, 200)
        names = re.findall(r"^event: (\w+)$", payload.decode(), re.M)
        self.assertEqual(names[0], "message_start")
        self.assertEqual(names[-2:], ["message_delta", "message_stop"])
        events = self.sse_events(payload)
        starts = [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"]
        self.assertEqual(starts, ["thinking", "tool_use"])
        partial = "".join(e["delta"]["partial_json"] for e in events
                          if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta")
        self.assertEqual(json.loads(partial), {"expressions": ["(4) * 3 + 4"]})
        delta = [e for e in events if e["type"] == "message_delta"][0]
        self.assertEqual(delta["delta"]["stop_reason"], "tool_use")
        self.assertEqual(names.count("content_block_start"), names.count("content_block_stop"))

    # --- rate limits ----------------------------------------------------------------------------------------------

    def limit(self, query):
        status, _, reply = self.call("GET", "/control?" + query)
        self.assertEqual(status, 200, reply)
        return reply

    def test_rate_limit_styles(self):
        cases = [
            ("retry-after", "", {"retry-after": "1"}),
            ("retry-after", "&wait=2.5", {"retry-after": "3"}),
            ("retry-after-ms", "&wait=1.5", {"retry-after-ms": "1500"}),
            ("reset-requests", "", {"x-ratelimit-reset-requests": "1s", "x-ratelimit-remaining-requests": "0",
                                    "x-ratelimit-limit-requests": "60"}),
            ("reset-tokens", "", {"x-ratelimit-reset-tokens": "120ms", "x-ratelimit-remaining-tokens": "0"}),
            ("reset-tokens", "&wait=360", {"x-ratelimit-reset-tokens": "6m0s"}),
            ("azure", "&wait=2", {"retry-after": "2", "retry-after-ms": "2000"}),
        ]
        for style, extra, headers in cases:
            with self.subTest(style=style, extra=extra):
                self.limit("ratelimit=1&provider=openai&style=%s%s" % (style, extra))
                status, head, reply = self.chat("openai")
                self.assertEqual(status, 429)
                self.assertEqual(reply["error"]["code"], "rate_limit_exceeded")
                for name, value in headers.items():
                    self.assertEqual(head.get(name), value, name)
                self.assertEqual(self.chat("openai")[0], 200, "only the next N requests are limited")
        self.limit("ratelimit=1&style=retry-after-date&wait=30")
        status, head, _ = self.chat("together")
        self.assertEqual(status, 429)
        when = email.utils.parsedate_to_datetime(head["retry-after"]).timestamp()
        self.assertAlmostEqual(when, time.time() + 30, delta=3)
        self.limit("ratelimit=1&style=anthropic&wait=4")
        status, head, reply = self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 100,
                                             "messages": [{"role": "user", "content": "hi"}]})
        self.assertEqual((status, reply["error"]["type"]), (429, "rate_limit_error"))
        self.assertEqual(head["retry-after"], "4")
        self.assertEqual(head["anthropic-ratelimit-requests-remaining"], "0")
        self.assertRegex(head["anthropic-ratelimit-requests-reset"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_rate_limit_counts_and_providers(self):
        reply = self.limit("ratelimit=2&provider=gemini")
        self.assertEqual(reply["ratelimit"], [{"provider": "gemini", "remaining": 2, "style": "retry-after",
                                               "wait": 1.0}])
        self.assertEqual(self.chat("openai")[0], 200, "another provider is not limited")
        for _ in range(2):
            status, _, body = self.chat("gemini")
            self.assertEqual((status, body[0]["error"]["status"]), (429, "RESOURCE_EXHAUSTED"))
        self.assertEqual(self.chat("gemini")[0], 200)
        self.limit("ratelimit=5&provider=mistral")
        self.limit("clear=1")
        self.assertEqual(self.chat("mistral")[0], 200)
        self.limit("ratelimit=1&provider=mistral")
        self.assertEqual(self.chat("mistral")[2]["type"], "rate_limited")
        self.assertEqual(self.call("GET", "/control?ratelimit=1&style=nope")[0], 400)
        self.assertEqual(self.call("GET", "/control?ratelimit=1&provider=nope")[0], 400)
        self.assertEqual(self.call("GET", "/control?ratelimit=1&wait=soon")[0], 400)

    def test_gateway_pages_stand_in_for_the_api(self):
        self.limit("gateway=1&provider=openai")
        status, head, page = self.chat("openai")
        self.assertEqual((status, head["content-type"]), (502, "text/html"))
        self.assertIn(b"<title>502 Bad Gateway</title>", page)
        self.assertEqual(head.get("access-control-allow-origin"), "*", "the page is readable from a browser")
        self.assertEqual(self.chat("openai")[0], 200, "only the next N requests")
        self.limit("gateway=1&status=503&page=text")
        status, head, text = self.chat("groq")
        self.assertEqual((status, head["content-type"]), (503, "text/plain"))
        self.assertTrue(text.startswith(b"upstream connect error"), text)
        self.limit("gateway=1&status=504")
        self.assertIn(b"504 Gateway Time-out", self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 9,
                                                               "messages": [{"role": "user", "content": "hi"}]})[2])
        for bad in ("gateway=1&page=pdf", "gateway=1&status=200", "gateway=1&provider=nope", "gateway=x"):
            self.assertEqual(self.call("GET", "/control?" + bad)[0], 400, bad)

    # --- stats ----------------------------------------------------------------------------------------------------

    def test_stats_records_without_the_key(self):
        self.chat("openai", temperature=0.3, max_tokens=500, stream=False)
        self.chat("azure", headers={"api-key": "wrong-key-0000"})
        self.messages({"model": "claude-sonnet-4-20250514", "max_tokens": 100, "top_p": 0.9,
                       "messages": [{"role": "user", "content": "hi"}]})
        status, _, stats = self.call("GET", "/stats")
        self.assertEqual(status, 200)
        first, second, third = stats["requests"]
        self.assertEqual(set(first), {"method", "provider", "path", "query", "model", "deployment", "status",
                                      "params", "temperature", "top_p", "max_tokens", "max_completion_tokens",
                                      "auth", "key_ok", "origin", "browser_header", "stream"})
        self.assertEqual((first["provider"], first["status"], first["auth"], first["key_ok"]),
                         ("openai", 200, "bearer", True))
        self.assertEqual(first["params"], ["model", "messages", "tools", "temperature", "max_tokens", "stream"])
        self.assertEqual((first["temperature"], first["max_tokens"], first["stream"]), (0.3, 500, False))
        self.assertEqual((second["provider"], second["status"], second["auth"], second["key_ok"]),
                         ("azure", 401, "api-key", False))
        self.assertEqual(second["query"], {"api-version": "2024-10-21"})
        self.assertEqual((second["deployment"], second["model"]), ("chat", "gpt-4o-mini"))
        self.assertEqual((third["auth"], third["top_p"], third["path"]), ("x-api-key", 0.9, "/anthropic/v1/messages"))
        self.assertEqual(stats["counts"]["total"], 3)
        self.assertEqual(stats["counts"]["by_status"], {"200": 2, "401": 1})
        self.assertEqual(stats["counts"]["by_provider"]["azure"], {"401": 1})
        text = json.dumps(stats)
        self.assertNotIn(KEY, text)
        self.assertNotIn("wrong-key-0000", text)
        self.call("GET", "/reset")
        self.assertEqual(self.call("GET", "/stats")[2]["requests"], [])


class CommandLineTest(unittest.TestCase):
    def test_options(self):
        emu = Emulator("--key", "other", "--azure-deployment", "prod=gpt-4.1", "--cors-for", "lmstudio",
                       "--ollama-origins", "https://app.example", "--vllm-context", "4096", "--open-auth", "",
                       "--cache-min-tokens", "0")
        try:
            status, _, reply = emu.call("POST", "/azure/openai/deployments/prod/chat/completions?api-version=x",
                                        {"messages": [{"role": "user", "content": PROMPT % 1}],
                                         "max_tokens": 40000}, {"api-key": "other"})
            self.assertEqual(status, 400)
            self.assertIn("at most 32768", reply["error"]["message"])
            self.assertEqual(emu.call("POST", CHAT["openai"][0], {"model": "gpt-4o", "messages": []},
                                      {"Authorization": "Bearer " + KEY})[0], 401)
            origin = {"Origin": "http://127.0.0.1:9"}
            status, head, _ = emu.call("POST", CHAT["lmstudio"][0], {"model": "m", "messages": []}, origin)
            self.assertEqual((status, head.get("access-control-allow-origin")), (401, "*"))
            status, head, _ = emu.call("POST", CHAT["ollama"][0], {"model": "m", "messages": []},
                                       {"Origin": "https://app.example", "Authorization": "Bearer other"})
            self.assertEqual((status, head["access-control-allow-origin"]), (200, "https://app.example"))
            status, _, reply = emu.call("POST", CHAT["vllm"][0], {"model": "m", "max_tokens": 4090, "messages": [
                {"role": "user", "content": "x"}]}, {"Authorization": "Bearer other"})
            self.assertIn("maximum context length is 4096 tokens", reply["error"]["message"])
            body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "y" * 2000}]}
            emu.call("POST", CHAT["openai"][0], body, {"Authorization": "Bearer other"})
            usage = emu.call("POST", CHAT["openai"][0], body, {"Authorization": "Bearer other"})[2]["usage"]
            self.assertGreater(usage["prompt_tokens_details"]["cached_tokens"], 0)
            self.assertEqual(usage["prompt_tokens_details"]["cached_tokens"] % 128, 0)
        finally:
            emu.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
