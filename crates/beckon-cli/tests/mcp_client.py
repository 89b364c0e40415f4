"""Drives Beckon's MCP server with the official Python MCP SDK, as a real client would.

Run by tests/mcp_python.rs, which starts Beckon and answers the questions this script asks.
The script tells the Rust side what to answer with one JSON line on stdout per question:

    {"answer": {"question": "<text>", "with": ["<label or text>", ...], "after_ms": 0}}
    {"answer": {"request_id": "<id>", "with": [...]}}

and ends with {"done": <number of checks>}. Any failed check raises, so the exit status is non-zero
and the traceback on stderr says which.

Usage:
    mcp_client.py http <url> <token> <expected-schema.json>
    mcp_client.py stdio <beckon binary> <data dir> <expected-schema.json>
    mcp_client.py down <beckon binary> <data dir with no Beckon> <expected-schema.json>
"""

import json
import sys
from contextlib import asynccontextmanager

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

CLIENT = types.Implementation(name="beckon test client", version="1.0")
checks = 0


def check(condition, message):
    global checks
    if not condition:
        raise AssertionError(message)
    checks += 1


def tell(instruction):
    print(json.dumps(instruction), flush=True)


def question(text, header, labels, multi=False):
    return {
        "question": text,
        "header": header,
        "multiSelect": multi,
        "options": [{"label": label, "description": f"Choose {label}"} for label in labels],
    }


def result_json(result):
    check(len(result.content) >= 1 and result.content[0].type == "text", f"one text content: {result}")
    return json.loads(result.content[0].text)


@asynccontextmanager
async def connect(mode, first, second):
    if mode == "http":
        headers = {"Authorization": f"Bearer {second}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
            async with streamable_http_client(f"{first}/mcp", http_client=http) as streams:
                async with ClientSession(streams[0], streams[1], client_info=CLIENT) as session:
                    yield session
    else:
        server = StdioServerParameters(command=first, args=["mcp", "--data-dir", second])
        async with stdio_client(server) as streams:
            async with ClientSession(streams[0], streams[1], client_info=CLIENT) as session:
                yield session


async def tools_are_claude_codes(session, expected):
    init = await session.initialize()
    check(init.server_info.name == "beckon", f"server name: {init.server_info}")
    check("get_answer" in (init.instructions or ""), f"instructions: {init.instructions}")
    listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    check(set(tools) == {"ask_user_question", "get_answer", "approve"}, f"tools: {sorted(tools)}")
    ask = tools["ask_user_question"].input_schema
    check(ask["properties"]["questions"] == expected["properties"]["questions"], "questions schema is Claude Code's")
    check(ask["required"] == ["questions"] and ask["additionalProperties"] is False, f"required: {ask}")
    wait = ask["properties"]["wait_seconds"]
    check(wait["default"] == 50 and wait["maximum"] == 110, f"wait_seconds: {wait}")
    item = ask["properties"]["questions"]["items"]
    check(item["properties"]["header"]["type"] == "string", "header is a string")
    check(item["properties"]["options"]["minItems"] == 2 and item["properties"]["options"]["maxItems"] == 4, "2-4")
    check(tools["get_answer"].input_schema["required"] == ["request_id"], "get_answer needs request_id")
    approve = tools["approve"].input_schema
    check(approve["required"] == ["tool_name", "input"], f"approve takes Claude Code's permission prompt input: {approve}")
    for tool in tools.values():
        check((tool.meta or {}).get("anthropic/alwaysLoad") is True, f"{tool.name} asks to be loaded: {tool.meta}")


async def ask_and_get_the_answer(session):
    tell({"answer": {"question": "Which database?", "with": ["SQLite"], "after_ms": 0}})
    result = await session.call_tool(
        "ask_user_question",
        {"questions": [question("Which database?", "Database", ["Postgres", "SQLite"])], "wait_seconds": 60},
    )
    check(result.is_error is False, f"answered is not an error: {result}")
    rendered = result_json(result)
    check(rendered["outcome"] == "answered", f"rendered answer: {result.content}")
    check(rendered["answers"] == {"Which database?": "SQLite"}, f"answers keyed by question: {rendered}")
    check(rendered["questions"][0]["question"] == "Which database?", f"questions echoed: {rendered}")
    check(result.structured_content == rendered, f"structured content: {result.structured_content}")


async def invalid_input_is_a_tool_error(session):
    bad = {"questions": [{"question": "Ship?", "header": "A header that is far too long", "multiSelect": False,
                          "options": [{"label": "Yes", "description": "y"}]}]}
    result = await session.call_tool("ask_user_question", bad)
    check(result.is_error is True, f"invalid input is a tool error: {result}")
    text = result.content[0].text
    check(text.startswith("ask_user_question was not sent to the person"), text)
    check("questions[0].header" in text and "questions[0].options" in text, f"every problem with its path: {text}")
    result = await session.call_tool("ask_user_question", {"questions": [question("Q?", "Q", ["A", "B"])],
                                                           "wait_seconds": 9000})
    check(result.is_error is True and "wait_seconds" in result.content[0].text, f"wait_seconds bound: {result}")


async def a_slow_answer_is_pending_then_get_answer_waits(session):
    result = await session.call_tool(
        "ask_user_question", {"questions": [question("Deploy now?", "Deploy", ["Yes", "No"])], "wait_seconds": 1}
    )
    check(result.is_error is False, f"pending is not an error: {result}")
    pending = result_json(result)
    request_id = pending.get("request_id", "")
    check(pending["outcome"] == "pending" and len(request_id) == 36, f"pending result: {pending}")
    check(request_id in pending["message"] and "get_answer" in pending["message"], f"says what to do: {pending}")
    still = await session.call_tool("get_answer", {"request_id": request_id, "wait_seconds": 0})
    check(result_json(still)["outcome"] == "pending", f"still pending: {still}")
    tell({"answer": {"request_id": request_id, "with": ["No"]}})
    answered = await session.call_tool("get_answer", {"request_id": request_id, "wait_seconds": 60})
    check(answered.is_error is False, f"{answered}")
    check(result_json(answered)["answers"] == {"Deploy now?": "No"}, f"get_answer's result: {answered.content}")
    unknown = await session.call_tool("get_answer", {"request_id": "0190f1d2-0000-7000-8000-00000000beef"})
    check(unknown.is_error is True and "No question has request_id" in unknown.content[0].text, f"{unknown}")


async def two_questions_can_wait_at_once(session):
    ids = []
    for text in ["First of two?", "Second of two?"]:
        result = await session.call_tool(
            "ask_user_question", {"questions": [question(text, "Two", ["A", "B"], multi=True)], "wait_seconds": 0.5}
        )
        check(result.is_error is False, f"a second waiting question is fine: {result}")
        ids.append(result_json(result)["request_id"])
    for request_id in ids:
        tell({"answer": {"request_id": request_id, "with": ["A, B"]}})
    for request_id, text in zip(ids, ["First of two?", "Second of two?"]):
        answered = await session.call_tool("get_answer", {"request_id": request_id})
        check(result_json(answered)["answers"] == {text: "A, B"}, f"multi-select answer: {answered.content}")


async def progress_is_reported_while_waiting(session):
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    tell({"answer": {"question": "Keep going?", "with": ["Yes"], "after_ms": 6500}})
    result = await session.call_tool(
        "ask_user_question",
        {"questions": [question("Keep going?", "Continue", ["Yes", "No"])], "wait_seconds": 60},
        progress_callback=on_progress,
    )
    check(result_json(result)["answers"] == {"Keep going?": "Yes"}, f"{result.content}")
    check(len(progress) >= 1, f"progress notifications: {progress}")
    check(all("Waiting for an answer" in (message or "") for _, message in progress), f"{progress}")
    check([value for value, _ in progress] == sorted(value for value, _ in progress), f"increasing: {progress}")


async def not_running_is_a_tool_error(session):
    await session.initialize()
    result = await session.call_tool("ask_user_question", {"questions": [question("Anyone?", "Anyone", ["A", "B"])]})
    check(result.is_error is True, f"not running is a tool error: {result}")
    check("Beckon is not running" in result.content[0].text, f"says so: {result.content}")


async def main():
    mode, first, second, schema_path = sys.argv[1:5]
    with open(schema_path) as file:
        expected = json.load(file)
    with anyio.fail_after(240):
        if mode == "down":
            async with connect("stdio", first, second) as session:
                await not_running_is_a_tool_error(session)
            tell({"done": checks})
            return
        async with connect(mode, first, second) as session:
            await tools_are_claude_codes(session, expected)
            await ask_and_get_the_answer(session)
            await invalid_input_is_a_tool_error(session)
            await a_slow_answer_is_pending_then_get_answer_waits(session)
            await two_questions_can_wait_at_once(session)
            await progress_is_reported_while_waiting(session)
    tell({"done": checks})


if __name__ == "__main__":
    anyio.run(main)
