#!/usr/bin/env python3
"""An emulator of the hosted chat APIs (OpenAI, Azure OpenAI, Anthropic, Gemini, OpenRouter, Together, Groq, DeepSeek,
Mistral, xAI) and of the local OpenAI-compatible servers (vLLM, SGLang, Ollama, llama.cpp, LM Studio), so that tests
can drive the agent loop against servers that behave the way each provider documents. docs/PROVIDERS.md lists the
behaviours with the public page or issue thread each one comes from. Python 3 standard library only.

Usage: python3 tools/provider_emulator.py [--port N] [--key KEY] [--azure-deployment NAME=MODEL ...]
           [--no-cors-for NAME,...] [--cors-for NAME,...] [--open-auth NAME,...] [--ollama-origins ORIGIN,...]
           [--vllm-context N] [--vllm-model NAME] [--cache-min-tokens N]
Prints "PORT <n>" once listening on 127.0.0.1 (a free port unless --port), then serves until killed, one thread per
connection. Every chat reply is the clean path of tools/fault_server.py's tiny agent (play(body, clean=True)): for
"Define task_1_input = <x>.\\nTask 1:\\nCompute <expr> and call the result task_1_out.\\n" turn 1 calls the
`calculator` tool with the expression, turn 2 (after a tool result starting with {"results") answers
"\\boxed{task_1_out = N}". No hashed faults: a client that sends an acceptable request gets every sample right.

Routes (P is the port; every provider prefix serves POST <prefix>/chat/completions and GET <prefix>/models):
  openai      http://127.0.0.1:P/openai/v1               Authorization: Bearer KEY
  azure       http://127.0.0.1:P/azure/openai/deployments/{deployment}/chat/completions?api-version=2024-10-21
              (also .../deployments/{deployment}/models and /azure/openai/models)   api-key: KEY
  anthropic   http://127.0.0.1:P/anthropic/v1  POST /messages (native: x-api-key + anthropic-version) and
              POST /chat/completions (OpenAI-compatible layer: Bearer KEY or x-api-key)
  gemini      /gemini/v1beta/openai     openrouter /openrouter/api/v1   together /together/v1
  groq        /groq/openai/v1           deepseek   /deepseek/v1 (and /deepseek)   mistral /mistral/v1   xai /xai/v1
  vllm        /vllm/v1   sglang /sglang/v1   ollama /ollama/v1   llamacpp /llamacpp/v1   lmstudio /lmstudio/v1
  OPTIONS on any provider path answers the CORS preflight.

Admin routes (no auth, no CORS rules):
  GET /stats    {"requests": [record...], "counts": {"total": n, "by_status": {"200": n}, "by_provider":
                {"openai": {"200": n}}}, "ratelimit": [pending rule...]}. A record is
                {method, provider, path, query (dict of the query string), model, deployment, status,
                 params (top-level body keys, in order), temperature, top_p, max_tokens, max_completion_tokens,
                 auth ("bearer" | "api-key" | "x-api-key" | null), key_ok, origin, browser_header, stream}.
                The key itself is never stored, only whether it matched.
  GET /reset    clears the records, counters, prompt caches and pending rate-limit rules.
  GET /control?ratelimit=N[&provider=P][&style=S][&wait=W]  the next N chat requests (chat/completions or
                /messages) of provider P (any provider if omitted) answer 429 with P's rate-limit body and the
                headers of style S; W is the wait, seconds ("1.5") or a duration ("120ms", "6m0s"), default 1 s
                (120 ms for reset-tokens). Rules queue up in order; /control?clear=1 drops them. Styles:
                  retry-after       retry-after: <ceil seconds>
                  retry-after-date  retry-after: <HTTP date, now + wait>
                  retry-after-ms    retry-after-ms: <milliseconds>
                  reset-requests    x-ratelimit-limit-requests, x-ratelimit-remaining-requests: 0,
                                    x-ratelimit-reset-requests: <duration, e.g. 1s> (+ the tokens family, not spent)
                  reset-tokens      x-ratelimit-remaining-tokens: 0, x-ratelimit-reset-tokens: <duration, e.g.
                                    120ms or 6m0s> (+ the requests family, not spent)
                  anthropic         retry-after + anthropic-ratelimit-requests-{limit,remaining: 0,reset: RFC 3339}
                  azure             retry-after + retry-after-ms        none   no header
                Without style=, the rule uses P's style: reset-requests for openai, anthropic for anthropic,
                azure for azure, retry-after for the rest and when provider is omitted.
                The answer lists the pending rules.
  GET /control?gateway=N[&provider=P][&status=S][&page=html|text]  the next N chat requests of provider P answer
                status S (default 502) as a proxy in front of the API would: page=html (default) sends nginx's
                "502 Bad Gateway" page (its title carries S and its reason) as text/html; page=text sends Envoy's
                "upstream connect error or disconnect/reset before headers. reset reason: connection termination"
                as text/plain. They share the queue with the rate-limit rules.

Behaviours (each with the provider's status and body; see docs/PROVIDERS.md for the sources):
  * Auth with the fixed --key (default test-key): Bearer for the OpenAI-style providers; Azure's api-key header;
    Anthropic native x-api-key (plus the anthropic-version header), Anthropic compat Bearer or x-api-key; llama.cpp
    Bearer or X-Api-Key. Ollama and LM Studio check nothing (--open-auth sets the list). Gemini answers a bad key
    with 400 API_KEY_INVALID and xAI with 400, as they do; the others with 401.
  * Azure: no api-version -> 404 "Resource not found"; unknown deployment -> 404 DeploymentNotFound. Deployments
    come from --azure-deployment NAME=MODEL (default chat=gpt-4o-mini and reasoning=gpt-5-mini).
  * CORS: preflights are answered allowing any requested header. Anthropic: a request with an Origin header but
    without "anthropic-dangerous-direct-browser-access: true" gets 401 with Anthropic's CORS body and no CORS
    headers. Ollama answers 403 with an empty body to an Origin outside localhost/127.0.0.1/0.0.0.0 (any port;
    --ollama-origins adds more, "*" allows all); allowed origins are echoed back, as llama.cpp echoes any origin
    (with Access-Control-Allow-Credentials); the others send "*". LM Studio sends no CORS headers unless
    --cors-for lmstudio (its "Enable CORS" switch). --no-cors-for NAME,... turns CORS headers off for providers
    that forbid browsers.
  * OpenAI and Azure reasoning models (gpt-5*, o1*, o3*, o4*), checked in this order, one error per request:
    max_tokens -> 400 unsupported_parameter; temperature other than 1 -> 400 unsupported_value; top_p (any
    value) -> 400 unsupported_parameter.
  * Completion caps (table CAPS below): a max_tokens / max_completion_tokens above the model's cap -> 400 with the
    provider's message naming the cap (OpenAI, Azure, Anthropic both wires, DeepSeek, Groq). vLLM: prompt tokens +
    max_tokens above --vllm-context (default 32768) -> its "maximum context length" 400. Models not in the table
    are accepted without a cap.
  * Anthropic native: max_tokens missing -> 400; temperature above 1 -> 400; thinking.budget_tokens not below
    max_tokens -> 400; thinking {"type": "enabled"} starts the reply with a thinking block. The compat layer caps a
    temperature above 1 at 1 instead, as documented.
  * Token counts are estimates: prompt tokens = ceil(characters of the compact JSON of tools + messages (+ system
    for Anthropic) / 4). A max_tokens/max_completion_tokens below what the reply needs cuts the reply short
    (finish_reason "length", Anthropic stop_reason "max_tokens").
  * Prompt caching, in usage: OpenAI-style providers (openai, azure, groq, openrouter, xai) report
    prompt_tokens_details.cached_tokens = the longest prefix (in estimated tokens) shared with an earlier request
    to the same provider, 0 below --cache-min-tokens (default 1024) and above it in 128-token steps. DeepSeek
    reports the shared prefix in 64-token units as prompt_cache_hit_tokens (the rest as prompt_cache_miss_tokens)
    and as cached_tokens. Anthropic native: prefixes up to cache_control breakpoints are written
    (cache_creation_input_tokens) when at least --cache-min-tokens long (twice that for haiku models); a later
    request whose prefix up to a block boundary before its last breakpoint was written reads it
    (cache_read_input_tokens); input_tokens is the rest. Other providers report no details.
  * Reasoning models (OpenAI/Azure list above, deepseek-reasoner) report completion_tokens_details.reasoning_tokens
    (64, or what the limit leaves), included in completion_tokens; deepseek-reasoner also sends reasoning_content.
  * "stream": true: chat-completions SSE chunks (text in pieces, tool-call arguments in two pieces, a finish
    chunk), with stream_options.include_usage a last chunk with "choices": [] and the usage (other chunks then
    carry "usage": null), then "data: [DONE]". Anthropic native: the message_start, content_block_start/delta/stop,
    message_delta, message_stop event stream (with a ping).
  * Bodies that are not a JSON object -> the provider's 400.
"""

import argparse
import base64
import collections
import datetime
import email.utils
import hashlib
import hmac
import json
import math
import os
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_server import play, text_of  # noqa: E402  (the tiny agent, reused)

# --- Configuration (set from the command line in main) -----------------------------------------------------------

CONFIG = {
    "key": "test-key",
    "azure_deployments": {"chat": "gpt-4o-mini", "reasoning": "gpt-5-mini"},
    "no_cors": set(),
    "cors": set(),
    "open_auth": {"ollama", "lmstudio"},
    "ollama_origins": [],
    "vllm_context": 32768,
    "vllm_model": "Qwen/Qwen2.5-7B-Instruct",
    "cache_min_tokens": 1024,
}

# --- The provider table ------------------------------------------------------------------------------------------
# prefix: URL prefix; auth: which credential header the chat route reads; cache: usage-detail style;
# cors: CORS headers on by default; rl_style: default rate-limit header style; models: what GET /models lists.

PROVIDERS = {
    "openai": dict(prefix="/openai/v1", auth="bearer", cache="openai", cors=True, rl_style="reset-requests",
                   models=["gpt-4o-mini", "gpt-4o", "gpt-4.1", "gpt-4.1-mini", "gpt-5", "gpt-5-mini", "o3-mini",
                           "o4-mini"]),
    "azure": dict(prefix="/azure/openai", auth="api-key", cache="openai", cors=True, rl_style="azure", models=[]),
    "anthropic": dict(prefix="/anthropic/v1", auth="bearer-or-x", cache=None, cors=True, rl_style="anthropic",
                      models=["claude-3-5-haiku-20241022", "claude-sonnet-4-20250514", "claude-opus-4-20250514",
                              "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"]),
    "gemini": dict(prefix="/gemini/v1beta/openai", auth="bearer", cache=None, cors=True, rl_style="retry-after",
                   models=["models/gemini-2.5-flash", "models/gemini-2.5-pro", "models/gemini-2.0-flash"]),
    "openrouter": dict(prefix="/openrouter/api/v1", auth="bearer", cache="openai", cors=True, rl_style="retry-after",
                       models=["openai/gpt-4o-mini", "anthropic/claude-sonnet-4", "google/gemini-2.5-flash"]),
    "together": dict(prefix="/together/v1", auth="bearer", cache=None, cors=True, rl_style="retry-after",
                     models=["meta-llama/Llama-3.3-70B-Instruct-Turbo", "Qwen/Qwen2.5-72B-Instruct-Turbo"]),
    "groq": dict(prefix="/groq/openai/v1", auth="bearer", cache="openai", cors=True, rl_style="retry-after",
                 models=["llama-3.3-70b-versatile", "qwen/qwen3-32b", "moonshotai/kimi-k2-instruct"]),
    "deepseek": dict(prefix="/deepseek/v1", auth="bearer", cache="deepseek", cors=True, rl_style="retry-after",
                     models=["deepseek-chat", "deepseek-reasoner"]),
    "mistral": dict(prefix="/mistral/v1", auth="bearer", cache=None, cors=True, rl_style="retry-after",
                    models=["mistral-small-latest", "mistral-large-latest"]),
    "xai": dict(prefix="/xai/v1", auth="bearer", cache="openai", cors=True, rl_style="retry-after",
                models=["grok-3-mini", "grok-4"]),
    "vllm": dict(prefix="/vllm/v1", auth="bearer", cache=None, cors=True, rl_style="retry-after", models=None),
    "sglang": dict(prefix="/sglang/v1", auth="bearer", cache=None, cors=True, rl_style="retry-after",
                   models=["default"]),
    "ollama": dict(prefix="/ollama/v1", auth="bearer", cache=None, cors=True, rl_style="retry-after",
                   models=["llama3.2:latest", "qwen2.5:7b"]),
    "llamacpp": dict(prefix="/llamacpp/v1", auth="bearer-or-x", cache=None, cors=True, rl_style="retry-after",
                     models=["model.gguf"]),
    "lmstudio": dict(prefix="/lmstudio/v1", auth="bearer", cache=None, cors=False, rl_style="retry-after",
                     models=["qwen2.5-7b-instruct"]),
}

# --- Completion caps: (provider family, model prefix) -> most output tokens a request may ask for ---------------
# A model matches a key when it equals it or continues it with "-" or "." (the longest key wins), so
# "claude-sonnet-4-20250514" is claude-sonnet-4 and "claude-sonnet-4-5-20250929" is claude-sonnet-4-5.

CAPS = {
    "openai": {  # also Azure, by the deployment's model
        "gpt-4o-mini": 16384, "gpt-4o": 16384, "gpt-4.1": 32768, "gpt-5": 128000,
        "o1": 100000, "o1-mini": 65536, "o3": 100000, "o3-mini": 100000, "o4-mini": 100000,
    },
    "anthropic": {
        "claude-3-haiku": 4096, "claude-3-5-haiku": 8192, "claude-3-5-sonnet": 8192, "claude-3-7-sonnet": 64000,
        "claude-sonnet-4": 64000, "claude-opus-4": 32000, "claude-opus-4-1": 32000, "claude-sonnet-4-5": 64000,
        "claude-haiku-4-5": 64000, "claude-opus-4-5": 64000,
    },
    "deepseek": {"deepseek-chat": 8192, "deepseek-reasoner": 65536},
    "groq": {"llama-3.3-70b-versatile": 32768, "qwen/qwen3-32b": 40960, "moonshotai/kimi-k2-instruct": 16384},
}

REASONING = re.compile(r"^(gpt-5|o1|o3|o4)")
REASONING_TOKENS = 64
THINKING_TOKENS = 16
RL_STYLES = ("retry-after", "retry-after-date", "retry-after-ms", "reset-requests", "reset-tokens", "anthropic",
             "azure", "none")
EXPOSED = ("retry-after, retry-after-ms, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, "
           "x-ratelimit-reset-requests, x-ratelimit-limit-tokens, x-ratelimit-remaining-tokens, "
           "x-ratelimit-reset-tokens, anthropic-ratelimit-requests-limit, anthropic-ratelimit-requests-remaining, "
           "anthropic-ratelimit-requests-reset, request-id, x-request-id")

# --- Shared state -------------------------------------------------------------------------------------------------

LOCK = threading.Lock()
STATE = {
    "records": [],
    "by_status": collections.Counter(),
    "by_provider": collections.defaultdict(collections.Counter),
    "rules": [],  # pending rate-limit rules: {"provider", "remaining", "style", "wait"}
    "prompts": collections.defaultdict(lambda: collections.deque(maxlen=256)),  # provider -> earlier prompts
    "anthropic_cache": set(),  # sha256 of (model, prefix) written by a cache_control breakpoint
}


def cap_for(family, model):
    table = CAPS.get(family, {})
    best = None
    for key in table:
        if model == key or model.startswith(key + "-") or model.startswith(key + "."):
            if best is None or len(key) > len(best):
                best = key
    return table[best] if best else None


def tokens(chars):
    return max(1, math.ceil(chars / 4)) if chars else 0


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def new_id(prefix):
    return prefix + os.urandom(12).hex()


def mask(secret, keep_head=3, keep_tail=4):
    """A wrong key as providers echo it: its ends kept, the middle starred (short keys fully starred)."""
    if not secret:
        return ""
    if len(secret) <= keep_head + keep_tail + 4:
        return "*" * len(secret)
    return secret[:keep_head] + "*" * (len(secret) - keep_head - keep_tail) + secret[-keep_tail:]


def parse_wait(text, default):
    """Seconds from "1.5", "2s", "120ms", "6m0s" or "1m30.5s"; the default when empty."""
    if not text:
        return default
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    total, matched = 0.0, False
    for number, unit in re.findall(r"([0-9]*\.?[0-9]+)(ms|h|m|s)", text):
        matched = True
        total += float(number) * {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[unit]
    if not matched:
        raise ValueError("bad duration %r" % text)
    return total


def go_duration(seconds):
    """A duration the way OpenAI's x-ratelimit-reset-* headers write it: 120ms, 1s, 1.5s, 6m0s."""
    if seconds < 1:
        return "%dms" % round(seconds * 1000)
    minutes, rest = divmod(seconds, 60)
    rest_text = ("%.3f" % rest).rstrip("0").rstrip(".")
    return "%dm%ss" % (minutes, rest_text) if minutes else "%ss" % rest_text


# --- Error bodies, per provider ------------------------------------------------------------------------------------

def oa_error(message, type_, param=None, code=None):
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def anthropic_error(type_, message):
    return {"type": "error", "error": {"type": type_, "message": message}, "request_id": new_id("req_")}


def anthropic_compat_error(type_, message):
    return {"error": {"code": type_, "message": message, "type": "invalid_request_error", "param": None}}


def google_error(code, status, message, reason=None):
    body = {"code": code, "message": message, "status": status}
    if reason:
        body["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason,
                            "domain": "googleapis.com",
                            "metadata": {"service": "generativelanguage.googleapis.com"}}]
    return [{"error": body}]


def auth_error(provider, kind, sent):
    """(status, body) for a missing (sent is None) or wrong key."""
    if provider == "openai":
        if sent is None:
            return 401, oa_error("You didn't provide an API key. You need to provide your API key in an "
                                 "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or "
                                 "as the password field (with blank username) if you're accessing the API from "
                                 "your browser and are prompted for a username and password. You can obtain an API "
                                 "key from https://platform.openai.com/account/api-keys.", "invalid_request_error")
        return 401, oa_error("Incorrect API key provided: %s. You can find your API key at "
                             "https://platform.openai.com/account/api-keys." % mask(sent),
                             "invalid_request_error", None, "invalid_api_key")
    if provider == "azure":
        return 401, {"error": {"code": "401", "message": "Access denied due to invalid subscription key or wrong "
                               "API endpoint. Make sure to provide a valid key for an active subscription and use a "
                               "correct regional API endpoint for your resource."}}
    if provider == "anthropic":
        message = "x-api-key header is required" if sent is None else "invalid x-api-key"
        if kind == "messages":
            return 401, anthropic_error("authentication_error", message)
        return 401, anthropic_compat_error("authentication_error", message)
    if provider == "gemini":
        return 400, google_error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
                                 "API_KEY_INVALID")
    if provider == "openrouter":
        return 401, {"error": {"message": "No auth credentials found" if sent is None else "User not found.",
                               "code": 401}}
    if provider == "together":
        return 401, oa_error("Invalid API key provided. You can find your API key at "
                             "https://api.together.xyz/settings/api-keys.", "invalid_request_error", None,
                             "invalid_api_key")
    if provider == "groq":
        return 401, {"error": {"message": "Invalid API Key", "type": "invalid_request_error",
                               "code": "invalid_api_key"}}
    if provider == "deepseek":
        message = ("Authentication Fails (auth header format should be Bearer sk-...)" if sent is None
                   else "Authentication Fails, Your api key: ****%s is invalid" % (sent[-4:] if len(sent) > 8 else ""))
        return 401, oa_error(message, "authentication_error", None, "invalid_request_error")
    if provider == "mistral":
        return 401, {"detail": "Unauthorized"}
    if provider == "xai":
        return 400, {"code": "Client specified an invalid argument",
                     "error": "Incorrect API key provided: %s. You can obtain an API key from https://console.x.ai."
                     % mask(sent or "", 2, 2)}
    if provider == "llamacpp":
        return 401, {"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}}
    return 401, {"error": "Unauthorized"}  # vllm, sglang (and ollama/lmstudio when --open-auth drops them)


def bad_json_error(provider, kind, detail):
    if provider in ("openai", "azure"):
        return oa_error("We could not parse the JSON body of your request. (HINT: This likely means you aren't "
                        "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
                        "sent was not valid JSON. If you have trouble figuring out how to fix this, please contact "
                        "us through our help center at help.openai.com.)", "invalid_request_error")
    if provider == "anthropic":
        if kind == "messages":
            return anthropic_error("invalid_request_error", "The request body is not valid JSON: %s" % detail)
        return anthropic_compat_error("invalid_request_error", "Failed to parse JSON: %s" % detail)
    if provider == "gemini":
        return google_error(400, "INVALID_ARGUMENT", "Invalid JSON payload received. %s" % detail)
    if provider in ("vllm", "sglang"):  # vLLM's request-validation handler: type is the HTTP status phrase
        return {"error": {"message": "JSON decode error: %s" % detail, "type": "Bad Request", "param": None,
                          "code": 400}}
    if provider == "mistral":
        return {"object": "error", "message": "Invalid JSON body: %s" % detail, "type": "invalid_request_error",
                "param": None, "code": None}
    return oa_error("Invalid JSON body: %s" % detail, "invalid_request_error")


def rate_limit_error(provider, kind, model, wait, api_version):
    seconds = "%ss" % ("%.3f" % wait).rstrip("0").rstrip(".")
    if provider == "openai":
        return oa_error("Rate limit reached for %s in organization org-emulator on requests per min (RPM): Limit 3, "
                        "Used 3, Requested 1. Please try again in %s. Visit https://platform.openai.com/account/"
                        "rate-limits to learn more." % (model, seconds), "requests", None, "rate_limit_exceeded")
    if provider == "azure":
        return {"error": {"code": "429", "message": "Requests to the ChatCompletions_Create Operation under Azure "
                          "OpenAI API version %s have exceeded token rate limit of your current OpenAI S0 pricing "
                          "tier. Please retry after %d seconds. Please go here: https://aka.ms/oai/quotaincrease if "
                          "you would like to further increase the default rate limit."
                          % (api_version, max(1, math.ceil(wait)))}}
    if provider == "anthropic":
        message = ("This request would exceed the rate limit for your organization of 50 requests per minute. For "
                   "details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response "
                   "headers for current usage. Please reduce the prompt length or the maximum tokens requested, or "
                   "try again later.")
        if kind == "messages":
            return anthropic_error("rate_limit_error", message)
        return anthropic_compat_error("rate_limit_error", message)
    if provider == "gemini":
        return google_error(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")
    if provider == "groq":
        return {"error": {"message": "Rate limit reached for model `%s` in organization `org_emulator` service tier "
                          "`on_demand` on requests per minute (RPM): Limit 30, Used 30, Requested 1. Please try "
                          "again in %s. Visit https://console.groq.com/docs/rate-limits for more information."
                          % (model, seconds), "type": "requests", "code": "rate_limit_exceeded"}}
    if provider == "mistral":
        return {"object": "error", "message": "Rate limit exceeded", "type": "rate_limited", "param": None,
                "code": "1300"}
    if provider == "openrouter":
        return {"error": {"message": "Rate limit exceeded", "code": 429}}
    if provider == "xai":
        return {"code": "Some resource has been exhausted",
                "error": "Too many requests for team emulator and model %s." % model}
    if provider == "deepseek":
        return oa_error("Rate limit reached for TPM", "rate_limit_error", None, "rate_limit_exceeded")
    return oa_error("Rate limit exceeded. Please try again in %s." % seconds, "rate_limit_error", None,
                    "rate_limit_exceeded")


def rate_limit_headers(style, wait):
    now = time.time()
    seconds = str(math.ceil(wait))
    if style == "retry-after":
        return {"retry-after": seconds}
    if style == "retry-after-date":
        return {"retry-after": email.utils.formatdate(now + wait, usegmt=True)}
    if style == "retry-after-ms":
        return {"retry-after-ms": str(round(wait * 1000))}
    if style == "azure":
        return {"retry-after": seconds, "retry-after-ms": str(round(wait * 1000))}
    if style == "reset-requests":
        return {"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": go_duration(wait), "x-ratelimit-limit-tokens": "150000",
                "x-ratelimit-remaining-tokens": "149000", "x-ratelimit-reset-tokens": "6ms"}
    if style == "reset-tokens":
        return {"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "59",
                "x-ratelimit-reset-requests": "1s", "x-ratelimit-limit-tokens": "150000",
                "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": go_duration(wait)}
    if style == "anthropic":
        reset = datetime.datetime.fromtimestamp(math.ceil(now + wait), datetime.timezone.utc)
        return {"retry-after": seconds, "anthropic-ratelimit-requests-limit": "50",
                "anthropic-ratelimit-requests-remaining": "0",
                "anthropic-ratelimit-requests-reset": reset.strftime("%Y-%m-%dT%H:%M:%SZ")}
    return {}


# --- Parameter rules ----------------------------------------------------------------------------------------------

def openai_reasoning_error(body):
    """OpenAI/Azure reasoning models: max_tokens, then temperature, then top_p (one error per request)."""
    if body.get("max_tokens") is not None:
        return oa_error("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                        "'max_completion_tokens' instead.", "invalid_request_error", "max_tokens",
                        "unsupported_parameter")
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        return oa_error("Unsupported value: 'temperature' does not support %s with this model. Only the default "
                        "(1) value is supported." % json.dumps(temperature), "invalid_request_error", "temperature",
                        "unsupported_value")
    if body.get("top_p") is not None:
        return oa_error("Unsupported parameter: 'top_p' is not supported with this model.", "invalid_request_error",
                        "top_p", "unsupported_parameter")
    return None


def requested_limit(body):
    """(parameter name, value) of the completion limit the request sets, or (None, None)."""
    for name in ("max_completion_tokens", "max_tokens"):
        value = body.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return name, int(value)
    return None, None


def cap_error(provider, kind, model, body, prompt_tokens):
    """(status, body) when the completion limit breaks the provider's cap, else None."""
    name, value = requested_limit(body)
    if provider == "vllm":
        context = CONFIG["vllm_context"]
        if name and prompt_tokens + value > context:
            message = ("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in "
                       "the messages, %d in the completion). Please reduce the length of the messages or "
                       "completion." % (context, prompt_tokens + value, prompt_tokens, value))
        elif prompt_tokens > context:
            message = ("This model's maximum context length is %d tokens. However, your request has %d input "
                       "tokens. Please reduce the length of the input messages." % (context, prompt_tokens))
        else:
            return None
        return 400, {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}
    family = {"azure": "openai"}.get(provider, provider)
    if name is None or family not in CAPS:
        return None
    cap = cap_for(family, model)
    if cap is None or value <= cap:
        return None
    if family == "openai":
        return 400, oa_error("%s is too large: %d. This model supports at most %d completion tokens, whereas you "
                             "provided %d." % (name, value, cap, value), "invalid_request_error", name, None)
    if family == "anthropic":
        message = "%s: %d > %d, which is the maximum allowed number of output tokens for %s" % (name, value, cap,
                                                                                               model)
        if kind == "messages":
            return 400, anthropic_error("invalid_request_error", message)
        return 400, anthropic_compat_error("invalid_request_error", message)
    if family == "deepseek":
        return 400, oa_error("Invalid max_tokens value, the valid range of max_tokens is [1, %d]" % cap,
                             "invalid_request_error", None, "invalid_request_error")
    if family == "groq":
        return 400, {"error": {"message": "`%s` must be less than or equal to `%d`, the maximum value for `%s` is "
                               "less than the `context_window` for this model" % (name, cap, name),
                               "type": "invalid_request_error", "param": name}}
    return None


# --- Caching ------------------------------------------------------------------------------------------------------

def common_prefix(a, b):
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def shared_prefix_tokens(provider, prompt):
    """Estimated tokens of the longest prefix `prompt` shares with an earlier prompt sent to `provider`; remembers
    `prompt`."""
    with LOCK:
        earlier = list(STATE["prompts"][provider])
        STATE["prompts"][provider].append(prompt)
    best = max((common_prefix(prompt, e) for e in earlier), default=0)
    return best // 4


def cached_tokens(style, shared, prompt_tokens):
    floor = CONFIG["cache_min_tokens"]
    if style == "deepseek":
        return min(prompt_tokens, (shared // 64) * 64)
    if shared < floor or shared <= 0:
        return 0
    return min(prompt_tokens, floor + ((shared - floor) // 128) * 128)


def anthropic_cache(model, blocks):
    """(cache_read, cache_creation, total) estimated tokens for Messages blocks [(text, breakpoint)]."""
    text, ends, breakpoints = "", [], []
    for piece, breakpoint in blocks:
        text += piece
        ends.append(len(text))
        if breakpoint:
            breakpoints.append(len(text))
    total = tokens(len(text))
    if not breakpoints:
        return 0, 0, total
    minimum = CONFIG["cache_min_tokens"] * (2 if "haiku" in model else 1)

    def key(end):
        return hashlib.sha256((model + "\0" + text[:end]).encode("utf-8")).hexdigest()

    last = max(breakpoints)
    with LOCK:
        read_end = next((end for end in sorted(ends, reverse=True)
                         if end <= last and key(end) in STATE["anthropic_cache"]), 0)
        creation = 0
        if last > read_end and tokens(last) >= minimum:
            creation = tokens(last) - tokens(read_end)
            for end in breakpoints:
                if tokens(end) >= minimum:
                    STATE["anthropic_cache"].add(key(end))
    return tokens(read_end), creation, total


# --- Anthropic Messages <-> chat completions ---------------------------------------------------------------------

def block_text(block):
    content = block.get("content")
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
    return content if isinstance(content, str) else compact(content)


def messages_to_chat(body):
    """A Messages request as a chat-completions body (system, text, image, tool_use, tool_result, tools)."""
    chat = []
    system = body.get("system")
    if system:
        chat.append({"role": "system", "content": system if isinstance(system, str) else text_of(system)})
    for message in body.get("messages") or []:
        role, content = message.get("role"), message.get("content")
        if isinstance(content, str):
            chat.append({"role": role, "content": content})
            continue
        parts, calls, results = [], [], []
        for block in content or []:
            kind = block.get("type")
            if kind == "text":
                parts.append({"type": "text", "text": block.get("text", "")})
            elif kind == "image":
                source = block.get("source") or {}
                parts.append({"type": "image_url", "image_url": {
                    "url": "data:%s;base64,%s" % (source.get("media_type", "image/png"), source.get("data", ""))}})
            elif kind == "tool_use":
                calls.append({"id": block.get("id"), "type": "function", "function": {
                    "name": block.get("name"), "arguments": compact(block.get("input") or {})}})
            elif kind == "tool_result":
                results.append({"role": "tool", "tool_call_id": block.get("tool_use_id"),
                                "content": block_text(block)})
        chat.extend(results)
        if role == "assistant":
            text = "".join(p["text"] for p in parts if p["type"] == "text")
            entry = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            chat.append(entry)
        elif parts:
            chat.append({"role": role, "content": parts})
    tools = [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description", ""),
                                                "parameters": t.get("input_schema") or {}}}
             for t in body.get("tools") or []]
    result = {"model": body.get("model"), "messages": chat}
    if tools:
        result["tools"] = tools
    return result


def anthropic_blocks(body):
    """The cacheable prefix of a Messages request, in Anthropic's order (tools, system, messages), as
    (serialized block, has cache_control) pairs."""
    def plain(block):
        return compact({k: v for k, v in block.items() if k != "cache_control"}) if isinstance(block, dict) \
            else compact(block)
    blocks = [("tool:" + plain(t), bool(t.get("cache_control"))) for t in body.get("tools") or []]
    system = body.get("system")
    if isinstance(system, str):
        blocks.append(("system:" + system, False))
    elif isinstance(system, list):
        blocks += [("system:" + plain(b), bool(b.get("cache_control"))) for b in system if isinstance(b, dict)]
    for message in body.get("messages") or []:
        content = message.get("content")
        role = "%s:" % message.get("role")
        if isinstance(content, str):
            blocks.append((role + content, False))
        else:
            blocks += [(role + plain(b), bool(isinstance(b, dict) and b.get("cache_control")))
                       for b in content or []]
    return blocks


# --- Replies ------------------------------------------------------------------------------------------------------

def shape_reply(played, limit, reasoning):
    """(message, finish_reason, visible tokens, reasoning tokens) from play's reply, cut to `limit`."""
    message = dict(played["choices"][0]["message"])
    finish = played["choices"][0]["finish_reason"]
    calls = message.get("tool_calls") or []
    visible = tokens(len(message.get("content") or "") + sum(len(c["function"]["arguments"]) for c in calls)) or 1
    spent = REASONING_TOKENS if reasoning else 0
    if limit is not None:
        limit = max(0, limit)
    if limit is not None and limit < visible + spent:
        if reasoning and limit > visible:
            spent = limit - visible
        else:
            spent = min(spent, limit)
            room = max(0, limit - spent)
            message = {"role": "assistant", "content": (message.get("content") or "")[:room * 4]}
            finish, visible = "length", min(visible, room)
    return message, finish, visible, spent


def chat_usage(provider, model, prompt_tokens, visible, spent, cached):
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": visible + spent,
             "total_tokens": prompt_tokens + visible + spent}
    style = PROVIDERS[provider]["cache"]
    if style in ("openai", "deepseek"):
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
        usage["completion_tokens_details"] = {"reasoning_tokens": spent}
    if style == "deepseek":
        usage["prompt_cache_hit_tokens"] = cached
        usage["prompt_cache_miss_tokens"] = prompt_tokens - cached
    return usage


def chat_completion(model, message, finish, usage):
    return {"id": new_id("chatcmpl-"), "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": usage}


def sse(payload):
    return ("data: %s\n\n" % compact(payload)).encode("utf-8")


def chat_stream(model, message, finish, usage, include_usage):
    """Server-sent chat.completion.chunk events for `message`."""
    stream_id, created = new_id("chatcmpl-"), int(time.time())

    def chunk(delta, finish_reason=None):
        payload = {"id": stream_id, "object": "chat.completion.chunk", "created": created, "model": model,
                   "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]}
        if include_usage:
            payload["usage"] = None
        return sse(payload)

    yield chunk({"role": "assistant", "content": ""})
    if message.get("reasoning_content"):
        yield chunk({"reasoning_content": message["reasoning_content"]})
    text = message.get("content") or ""
    for at in range(0, len(text), 12):
        yield chunk({"content": text[at:at + 12]})
    for index, call in enumerate(message.get("tool_calls") or []):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": call["function"]["name"], "arguments": arguments[:half]}}]})
        yield chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
    yield chunk({}, finish)
    if include_usage:
        yield sse({"id": stream_id, "object": "chat.completion.chunk", "created": created, "model": model,
                   "choices": [], "usage": usage})
    yield b"data: [DONE]\n\n"


def anthropic_content(message, thinking):
    content = []
    if thinking:
        content.append({"type": "thinking", "thinking": "I should use the calculator for the arithmetic.",
                        "signature": base64.b64encode(os.urandom(24)).decode("ascii")})
    if message.get("content"):
        content.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls") or []:
        content.append({"type": "tool_use", "id": "toolu_" + call["id"].replace("call_", ""),
                        "name": call["function"]["name"], "input": json.loads(call["function"]["arguments"])})
    return content


def anthropic_stream(reply):
    def event(name, payload):
        return ("event: %s\ndata: %s\n\n" % (name, compact(payload))).encode("utf-8")

    start = dict(reply, content=[], stop_reason=None, stop_sequence=None,
                 usage=dict(reply["usage"], output_tokens=1))
    yield event("message_start", {"type": "message_start", "message": start})
    yield event("ping", {"type": "ping"})
    for index, block in enumerate(reply["content"]):
        kind = block["type"]
        if kind == "text":
            yield event("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {"type": "text", "text": ""}})
            for at in range(0, len(block["text"]), 12):
                yield event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                    "delta": {"type": "text_delta", "text": block["text"][at:at + 12]}})
        elif kind == "thinking":
            yield event("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {"type": "thinking", "thinking": ""}})
            yield event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "thinking_delta", "thinking": block["thinking"]}})
            yield event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "signature_delta", "signature": block["signature"]}})
        else:
            yield event("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {"type": "tool_use", "id": block["id"],
                                                                  "name": block["name"], "input": {}}})
            arguments = compact(block["input"])
            half = len(arguments) // 2
            for piece in (arguments[:half], arguments[half:]):
                yield event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                    "delta": {"type": "input_json_delta", "partial_json": piece}})
        yield event("content_block_stop", {"type": "content_block_stop", "index": index})
    yield event("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": None},
                                  "usage": {"output_tokens": reply["usage"]["output_tokens"]}})
    yield event("message_stop", {"type": "message_stop"})


# --- Requests -----------------------------------------------------------------------------------------------------

class Response:
    def __init__(self, status, payload=None, headers=None, stream=None, cors=True):
        self.status, self.payload, self.headers, self.stream, self.cors = status, payload, headers or {}, stream, cors


REASONS = {502: "Bad Gateway", 503: "Service Temporarily Unavailable", 504: "Gateway Time-out", 403: "Forbidden",
           413: "Request Entity Too Large", 500: "Internal Server Error"}


def gateway_response(rule):
    """What a proxy sends in place of the API: nginx's error page or Envoy's plain-text line."""
    status = rule["status"]
    if rule["page"] == "text":
        text = "upstream connect error or disconnect/reset before headers. reset reason: connection termination"
        return Response(status, text.encode(), {"Content-Type": "text/plain"})
    title = "%d %s" % (status, REASONS.get(status, "Error"))
    page = ("<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n"
            "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n") % (title, title)
    return Response(status, page.encode(), {"Content-Type": "text/html"})


class Ctx:
    """One request to a provider route."""

    def __init__(self, method, provider, kind, path, query, headers, raw, deployment=None):
        self.method, self.provider, self.kind, self.path = method, provider, kind, path
        self.query, self.headers, self.raw, self.deployment = query, headers, raw, deployment
        self.spec = PROVIDERS[provider]
        origin = headers.get("Origin")
        self.record = {"method": method, "provider": provider, "path": path, "query": query, "model": None,
                       "deployment": deployment, "status": None, "params": [], "temperature": None, "top_p": None,
                       "max_tokens": None, "max_completion_tokens": None, "auth": None, "key_ok": False,
                       "origin": origin,
                       "browser_header": (headers.get("anthropic-dangerous-direct-browser-access") or "").lower()
                       == "true",
                       "stream": False}


def route(path):
    """(provider, kind, deployment) for a provider path, kind being chat, messages or models; None if unknown."""
    for name, spec in PROVIDERS.items():
        prefix = spec["prefix"]
        if not (path == prefix or path.startswith(prefix + "/")):
            continue
        rest = path[len(prefix):].rstrip("/")
        if name == "azure":
            match = re.fullmatch(r"/deployments/([^/]+)/(chat/completions|models)", rest)
            if match:
                return name, "chat" if match.group(2) == "chat/completions" else "models", match.group(1)
            return (name, "models", None) if rest == "/models" else (name, "unknown", None)
        if rest == "/chat/completions":
            return name, "chat", None
        if rest == "/models":
            return name, "models", None
        if rest == "/messages" and name == "anthropic":
            return name, "messages", None
        return name, "unknown", None
    for alias, name in (("/deepseek/chat/completions", "chat"), ("/deepseek/models", "models")):
        if path.rstrip("/") == alias:
            return "deepseek", name, None
    return None


def origin_allowed_by_ollama(origin):
    host = re.match(r"^https?://(localhost|127\.0\.0\.1|0\.0\.0\.0)(:\d+)?$", origin)
    if host:
        return True
    for allowed in CONFIG["ollama_origins"]:
        if allowed == "*" or allowed == origin or (allowed.endswith("*") and origin.startswith(allowed[:-1])):
            return True
    return False


def credential(ctx):
    """(header kind, value) of the credential the route reads, or (None, None)."""
    auth = ctx.headers.get("Authorization") or ""
    bearer = auth[7:].strip() if auth[:7].lower() == "bearer " else None
    found = {"bearer": bearer, "api-key": ctx.headers.get("api-key"), "x-api-key": ctx.headers.get("x-api-key")}
    style = ctx.spec["auth"]
    if ctx.provider == "anthropic" and ctx.kind == "messages":
        style = "x-api-key"
    order = {"bearer": ["bearer"], "api-key": ["api-key"], "x-api-key": ["x-api-key"],
             "bearer-or-x": ["bearer", "x-api-key"]}[style]
    for name in order:
        if found[name] is not None:
            return name, found[name]
    return None, None


def take_rate_limit(provider):
    with LOCK:
        for rule in STATE["rules"]:
            if rule["remaining"] > 0 and rule["provider"] in (None, provider):
                rule["remaining"] -= 1
                STATE["rules"] = [r for r in STATE["rules"] if r["remaining"] > 0]
                return rule
    return None


def parse_body(ctx):
    """Parses a chat body into ctx.body (None and ctx.body_problem if it is not a JSON object) and records what the
    client sent, even if the request is refused later (auth, CORS, rate limit)."""
    ctx.body, ctx.body_problem = None, ""
    if ctx.method != "POST" or ctx.kind not in ("chat", "messages"):
        return
    try:
        body = json.loads(ctx.raw.decode("utf-8"))
        if not isinstance(body, dict):
            raise ValueError("the body is not a JSON object")
    except (ValueError, UnicodeDecodeError) as problem:
        ctx.body_problem = str(problem)
        return
    ctx.body = body
    record = ctx.record
    record["params"] = list(body.keys())
    for name in ("temperature", "top_p", "max_tokens", "max_completion_tokens"):
        record[name] = body.get(name)
    record["stream"] = bool(body.get("stream"))
    record["model"] = CONFIG["azure_deployments"].get(ctx.deployment) if ctx.provider == "azure" \
        else body.get("model")


def handle(ctx):
    """The Response for a provider request (CORS headers are added by the caller unless cors=False)."""
    provider, kind, headers = ctx.provider, ctx.kind, ctx.headers
    origin = headers.get("Origin")
    parse_body(ctx)
    if provider == "ollama" and origin and not origin_allowed_by_ollama(origin):
        return Response(403, b"", cors=False)
    if ctx.method == "OPTIONS":
        return Response(204, b"")
    if provider == "anthropic" and origin and not ctx.record["browser_header"]:
        return Response(401, anthropic_error("authentication_error", "CORS requests must set "
                                             "'anthropic-dangerous-direct-browser-access' header"), cors=False)
    if kind == "unknown":
        return Response(404, oa_error("Invalid URL (%s %s)" % (ctx.method, ctx.path), "invalid_request_error"))
    if kind in ("chat", "messages") and ctx.method != "POST" or kind == "models" and ctx.method != "GET":
        return Response(405, oa_error("Method %s not allowed on %s" % (ctx.method, ctx.path),
                                      "invalid_request_error"))
    if provider == "azure" and "api-version" not in ctx.query:
        return Response(404, {"error": {"code": "404", "message": "Resource not found"}})

    sent_as, sent = credential(ctx)
    ctx.record["auth"] = sent_as
    ctx.record["key_ok"] = sent is not None and hmac.compare_digest(sent.encode(), CONFIG["key"].encode())
    if provider not in CONFIG["open_auth"] and not ctx.record["key_ok"]:
        status, body = auth_error(provider, kind, sent)
        return Response(status, body)
    if provider == "anthropic" and kind == "messages" and not headers.get("anthropic-version"):
        return Response(400, anthropic_error("invalid_request_error", "anthropic-version: header is required"))

    if provider == "azure" and ctx.deployment is not None and ctx.deployment not in CONFIG["azure_deployments"]:
        return Response(404, {"error": {"code": "DeploymentNotFound", "message": "The API deployment for this "
                                        "resource does not exist. If you created the deployment within the last 5 "
                                        "minutes, please wait a moment and try again."}})
    if kind == "models":
        return Response(200, models_list(provider, ctx.deployment))

    body, detail = ctx.body, ctx.body_problem
    rule = take_rate_limit(provider)
    if rule and rule.get("gateway"):
        return gateway_response(rule)
    if rule:
        model = ctx.record["model"] or "the model"
        payload = rate_limit_error(provider, kind, model, rule["wait"], ctx.query.get("api-version", ""))
        return Response(429, payload, rate_limit_headers(rule["style"], rule["wait"]))
    if body is None:
        return Response(400, bad_json_error(provider, kind, detail))
    if kind == "messages":
        return anthropic_messages(ctx, body)
    return chat(ctx, body)


def models_list(provider, deployment):
    if provider == "anthropic":
        data = [{"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
                for m in PROVIDERS["anthropic"]["models"]]
        return {"data": data, "has_more": False, "first_id": data[0]["id"], "last_id": data[-1]["id"]}
    names = PROVIDERS[provider]["models"]
    if provider == "vllm":
        names = [CONFIG["vllm_model"]]
    if provider == "azure":
        names = sorted(set(CONFIG["azure_deployments"].values()))
    owner = {"gemini": "google", "ollama": "library", "vllm": "vllm", "openai": "system"}.get(provider, provider)
    return {"object": "list", "data": [{"id": n, "object": "model", "created": 1700000000, "owned_by": owner}
                                       for n in names]}


def chat(ctx, body):
    provider = ctx.provider
    model = ctx.record["model"] or ""
    if provider == "gemini" and model.startswith("models/"):
        model = model[len("models/"):]
    family = "openai" if provider in ("openai", "azure") else provider
    reasoning = (family == "openai" and bool(REASONING.match(model))) or model == "deepseek-reasoner"
    prompt = compact({"tools": body.get("tools") or [], "messages": body.get("messages") or []})
    prompt_tokens = tokens(len(prompt))
    if family == "openai" and reasoning:
        problem = openai_reasoning_error(body)
        if problem:
            return Response(400, problem)
    problem = cap_error(provider, "chat", model, body, prompt_tokens)
    if problem:
        return Response(*problem)
    if provider == "anthropic" and isinstance(body.get("temperature"), (int, float)) and body["temperature"] > 1:
        body = dict(body, temperature=1)  # the compat layer caps it, as documented
    played = play(body, clean=True)
    _, limit = requested_limit(body)
    message, finish, visible, spent = shape_reply(played, limit, reasoning)
    style = PROVIDERS[provider]["cache"]
    cached = 0
    if style:
        cached = cached_tokens(style, shared_prefix_tokens(provider, prompt), prompt_tokens)
    usage = chat_usage(provider, ctx.record["model"], prompt_tokens, visible, spent, cached)
    if model == "deepseek-reasoner" and finish != "length":
        message["reasoning_content"] = "The task needs arithmetic, so I use the calculator tool."
    if body.get("stream"):
        include = bool((body.get("stream_options") or {}).get("include_usage"))
        return Response(200, stream=chat_stream(ctx.record["model"], message, finish, usage, include))
    return Response(200, chat_completion(ctx.record["model"], message, finish, usage))


def anthropic_messages(ctx, body):
    model = body.get("model") or ""
    if body.get("max_tokens") is None:
        return Response(400, anthropic_error("invalid_request_error", "max_tokens: Field required"))
    temperature = body.get("temperature")
    if isinstance(temperature, (int, float)) and not 0 <= temperature <= 1:
        return Response(400, anthropic_error("invalid_request_error", "temperature: range: 0..1"))
    problem = cap_error("anthropic", "messages", model, body, 0)
    if problem:
        return Response(*problem)
    thinking = (body.get("thinking") or {}).get("type") == "enabled"
    if thinking and int(body["max_tokens"]) <= int((body.get("thinking") or {}).get("budget_tokens") or 0):
        return Response(400, anthropic_error("invalid_request_error", "`max_tokens` must be greater than "
                                             "`thinking.budget_tokens`. Please consult our documentation at "
                                             "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
                                             "#max-tokens-and-context-window-size"))
    played = play(messages_to_chat(body), clean=True)
    spent = THINKING_TOKENS if thinking else 0
    message, finish, visible, _ = shape_reply(played, int(body["max_tokens"]) - spent, False)
    read, creation, total = anthropic_cache(model, anthropic_blocks(body))
    reply = {"id": new_id("msg_"), "type": "message", "role": "assistant", "model": model,
             "content": anthropic_content(message, thinking),
             "stop_reason": {"tool_calls": "tool_use", "length": "max_tokens"}.get(finish, "end_turn"),
             "stop_sequence": None,
             "usage": {"input_tokens": total - read - creation, "cache_creation_input_tokens": creation,
                       "cache_read_input_tokens": read, "output_tokens": visible + spent}}
    if body.get("stream"):
        return Response(200, stream=anthropic_stream(reply))
    return Response(200, reply)


# --- HTTP ---------------------------------------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ProviderEmulator/1"

    def log_message(self, *args):
        pass

    def do_OPTIONS(self):
        self.dispatch("OPTIONS")

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def dispatch(self, method):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if method == "GET" and url.path in ("/stats", "/reset", "/control"):
            self.admin(url.path, query)
            return
        found = route(url.path)
        if not found:
            self.write(Response(404, {"error": {"message": "no provider route at %s" % url.path}}), None)
            return
        provider, kind, deployment = found
        ctx = Ctx(method, provider, kind, url.path, query, self.headers, raw, deployment)
        try:
            response = handle(ctx)
        except Exception as problem:  # a bug here should show up as a 500, not a hung client
            response = Response(500, {"error": {"message": "emulator error: %r" % problem}})
        ctx.record["status"] = response.status
        with LOCK:
            STATE["records"].append(ctx.record)
            STATE["by_status"][str(response.status)] += 1
            STATE["by_provider"][provider][str(response.status)] += 1
        self.write(response, ctx)

    def cors_headers(self, ctx, response):
        if ctx is None or not response.cors:
            return {}
        provider = ctx.provider
        enabled = (PROVIDERS[provider]["cors"] or provider in CONFIG["cors"]) and provider not in CONFIG["no_cors"]
        if provider == "anthropic" and ctx.method != "OPTIONS":
            enabled = enabled and ctx.record["browser_header"]
        if not enabled:
            return {}
        origin = self.headers.get("Origin")
        reflect = provider in ("ollama", "llamacpp") and origin  # they echo the Origin back; the others send *
        headers = {"Access-Control-Allow-Origin": origin if reflect else "*"}
        if reflect:
            headers["Vary"] = "Origin"
        if reflect and provider == "llamacpp":
            headers["Access-Control-Allow-Credentials"] = "true"
        if ctx.method == "OPTIONS":
            headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
            headers["Access-Control-Allow-Headers"] = self.headers.get("Access-Control-Request-Headers") or "*"
            headers["Access-Control-Max-Age"] = "600"
            if self.headers.get("Access-Control-Request-Private-Network") == "true":
                headers["Access-Control-Allow-Private-Network"] = "true"
        else:
            headers["Access-Control-Expose-Headers"] = EXPOSED
        return headers

    def write(self, response, ctx):
        try:
            self.send_response(response.status)
            for name, value in list(self.cors_headers(ctx, response).items()) + list(response.headers.items()):
                self.send_header(name, value)
            if response.stream is not None:
                self.close_connection = True
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for piece in response.stream:
                    self.wfile.write(piece)
                    self.wfile.flush()
                return
            payload = response.payload
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
            if data and "Content-Type" not in response.headers:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True  # the client went away

    def admin(self, path, query):
        if path == "/stats":
            with LOCK:
                payload = {"requests": list(STATE["records"]),
                           "counts": {"total": len(STATE["records"]), "by_status": dict(STATE["by_status"]),
                                      "by_provider": {p: dict(c) for p, c in STATE["by_provider"].items()}},
                           "ratelimit": [dict(r) for r in STATE["rules"]]}
            self.write(Response(200, payload), None)
        elif path == "/reset":
            with LOCK:
                STATE["records"].clear()
                STATE["by_status"].clear()
                STATE["by_provider"].clear()
                STATE["rules"].clear()
                STATE["prompts"].clear()
                STATE["anthropic_cache"].clear()
            self.write(Response(200, {"reset": True}), None)
        else:
            try:
                if query.get("clear"):
                    with LOCK:
                        STATE["rules"].clear()
                if "ratelimit" in query:
                    provider = query.get("provider") or None
                    if provider is not None and provider not in PROVIDERS:
                        raise ValueError("unknown provider %r (known: %s)" % (provider, ", ".join(PROVIDERS)))
                    style = query.get("style") or PROVIDERS.get(provider or "", {}).get("rl_style") or "retry-after"
                    if style not in RL_STYLES:
                        raise ValueError("unknown style %r (known: %s)" % (style, ", ".join(RL_STYLES)))
                    wait = parse_wait(query.get("wait"), 0.12 if style == "reset-tokens" else 1.0)
                    count = int(query["ratelimit"])
                    if count > 0:
                        with LOCK:
                            STATE["rules"].append({"provider": provider, "remaining": count, "style": style,
                                                   "wait": wait})
                if "gateway" in query:
                    provider = query.get("provider") or None
                    if provider is not None and provider not in PROVIDERS:
                        raise ValueError("unknown provider %r (known: %s)" % (provider, ", ".join(PROVIDERS)))
                    page = query.get("page") or "html"
                    if page not in ("html", "text"):
                        raise ValueError("unknown page %r (known: html, text)" % page)
                    status = int(query.get("status") or 502)
                    if not 400 <= status <= 599:
                        raise ValueError("status %d is not an error status (400-599)" % status)
                    count = int(query["gateway"])
                    if count > 0:
                        with LOCK:
                            STATE["rules"].append({"provider": provider, "remaining": count, "gateway": True,
                                                   "status": status, "page": page})
            except ValueError as problem:
                self.write(Response(400, {"error": str(problem)}), None)
                return
            with LOCK:
                self.write(Response(200, {"ratelimit": [dict(r) for r in STATE["rules"]]}), None)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def names(text):
    found = {n.strip() for n in (text or "").split(",") if n.strip()}
    unknown = found - set(PROVIDERS)
    if unknown:
        raise SystemExit("unknown provider(s): %s (known: %s)" % (", ".join(sorted(unknown)), ", ".join(PROVIDERS)))
    return found


def main():
    parser = argparse.ArgumentParser(description="Emulates the hosted chat APIs on 127.0.0.1 (see the docstring).")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", default="test-key")
    parser.add_argument("--azure-deployment", action="append", default=[], metavar="NAME=MODEL")
    parser.add_argument("--no-cors-for", default="", metavar="NAME,...")
    parser.add_argument("--cors-for", default="", metavar="NAME,...")
    parser.add_argument("--open-auth", default="ollama,lmstudio", metavar="NAME,...")
    parser.add_argument("--ollama-origins", default="", metavar="ORIGIN,...")
    parser.add_argument("--vllm-context", type=int, default=32768)
    parser.add_argument("--vllm-model", default="Qwen/Qwen2.5-7B-Instruct")
    parser.add_argument("--cache-min-tokens", type=int, default=1024)
    args = parser.parse_args()
    CONFIG["key"] = args.key
    if args.azure_deployment:
        deployments = {}
        for item in args.azure_deployment:
            name, _, model = item.partition("=")
            if not name or not model:
                raise SystemExit("--azure-deployment takes NAME=MODEL, got %r" % item)
            deployments[name] = model
        CONFIG["azure_deployments"] = deployments
    CONFIG["no_cors"] = names(args.no_cors_for)
    CONFIG["cors"] = names(args.cors_for)
    CONFIG["open_auth"] = names(args.open_auth)
    CONFIG["ollama_origins"] = [o.strip() for o in args.ollama_origins.split(",") if o.strip()]
    CONFIG["vllm_context"] = args.vllm_context
    CONFIG["vllm_model"] = args.vllm_model
    CONFIG["cache_min_tokens"] = args.cache_min_tokens
    server = Server(("127.0.0.1", args.port), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
