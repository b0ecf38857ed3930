"""A stand-in sidecar speaking Larder's framing, for client behaviour that is
hard to provoke from the real server: ``$/progress`` for other tokens,
crashing on purpose, a request never answered until it is cancelled, a
question to the client that it cancels while the client works on it."""

import json
import sys

shut_down = False
hanging = {}  # id → method of each request not answered until cancelled
cancelled = []  # the methods of the requests cancelled, in order


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(rid, result=None, error=None):
    message = {"jsonrpc": "2.0", "id": rid}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    send(message)


def progress(token, value):
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": token, "value": value}})


for line in sys.stdin:
    if not line.strip():
        continue
    m = json.loads(line)
    method, rid, params = m.get("method"), m.get("id"), m.get("params") or {}
    if method is None:
        continue
    if rid is None:
        if method == "$/cancelRequest" and params.get("id") in hanging:
            cancelled.append(hanging.pop(params["id"]))
            answer(params["id"], error={"code": -32800, "message": "Request cancelled"})
        if method == "exit":
            sys.exit(0 if shut_down else 1)
        continue
    if method == "initialize":
        answer(rid, {"serverInfo": {"name": "fake", "version": "0"}, "protocolVersion": "1.0",
                     "capabilities": {"methods": ["work"]}, "store": {"path": None, "persistent": False}})
    elif method == "work":
        token = params.get("workDoneToken")
        progress(token, {"kind": "begin", "title": "work"})
        for k in range(params.get("steps", 3)):
            progress(token, {"kind": "report", "percentage": (k + 1) * 100 // params.get("steps", 3)})
        progress(token, {"kind": "end"})
        progress("someone-else", {"kind": "report"})
        answer(rid, {"done": True, "token": token})
    elif method == "hang":
        hanging[rid] = method
    elif method == "ask_then_cancel":
        # Asks the client, gives up on the question once the client says it
        # started on it (the notification "started"), then answers.
        send({"jsonrpc": "2.0", "id": "larder-1", "method": "client.slow", "params": {}})
        for started in sys.stdin:
            if json.loads(started).get("method") == "started":
                break
        send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "larder-1"}})
        answer(rid, "asked")
    elif method == "cancelled":
        answer(rid, cancelled)
    elif method == "crash":
        sys.stderr.write("fake: crashing on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    elif method == "shutdown":
        shut_down = True
        answer(rid, None)
    else:
        answer(rid, error={"code": -32601, "message": f"Method not found: {method}"})
