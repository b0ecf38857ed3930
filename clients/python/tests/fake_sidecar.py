"""A stand-in sidecar speaking Larder's framing, for client features the real
server does not offer yet: ``$/progress`` keyed by workDoneToken and
server-to-client ``migrate.object`` requests during ``migrate.run``."""

import json
import sys

shut_down = False
next_id = 0


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


def ask(method, params):
    """Sends a request to the client and reads until its answer arrives."""
    global next_id
    next_id += 1
    rid = f"larder-{next_id}"
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("id") == rid and "method" not in message:
            return message
    sys.exit(4)


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
        if method == "exit":
            sys.exit(0 if shut_down else 1)
        continue
    if method == "initialize":
        answer(rid, {"serverInfo": {"name": "fake", "version": "0"}, "protocolVersion": "1.0",
                     "capabilities": {"methods": ["work", "migrate.run"]}, "store": {"path": None, "persistent": False}})
    elif method == "work":
        token = params.get("workDoneToken")
        progress(token, {"kind": "begin", "title": "work"})
        for k in range(params.get("steps", 3)):
            progress(token, {"kind": "report", "percentage": (k + 1) * 100 // params.get("steps", 3)})
        progress(token, {"kind": "end"})
        progress("someone-else", {"kind": "report"})
        answer(rid, {"done": True, "token": token})
    elif method == "migrate.run":
        token = params.get("workDoneToken")
        converted, failed = [], []
        for k, obj in enumerate(params.get("objects", [])):
            reply = ask("migrate.object", {"type": "note", "fromVersion": 1, "toVersion": 2, "object": obj})
            if "error" in reply:
                failed.append({"index": k, "error": reply["error"]})
            else:
                converted.append(reply["result"])
            if token is not None:
                progress(token, {"kind": "report", "done": k + 1})
        if failed:
            answer(rid, error={"code": -31050, "message": "migration failed", "data": {"failed": failed}})
        else:
            answer(rid, {"converted": converted})
    elif method == "crash":
        sys.stderr.write("fake: crashing on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    elif method == "shutdown":
        shut_down = True
        answer(rid, None)
    else:
        answer(rid, error={"code": -32601, "message": f"Method not found: {method}"})
