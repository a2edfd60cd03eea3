#!/usr/bin/env python3
"""A scripted LSP session with a clangd: what an editor does when it opens a file.

Starts the server on stdio, initializes it on a workspace, opens one file,
waits for its diagnostics, asks for the code actions of each diagnostic whose
code starts with --code-prefix, shuts the server down, and prints what an
editor would show, one item per line, for FileCheck:

  diagnostic <line>:<char>-<line>:<char> source=<s> code=<c> severity=<n> message=<json>
  action title=<json> kind=<k> preferred=<bool> diagnostics=<codes>
  edit <file> <line>:<char>-<line>:<char> newText=<json>

Positions are LSP's: 0-based lines and UTF-16 columns.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import threading
import queue


class Server:
    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self.next_id = 0
        self.messages = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message):
        message["jsonrpc"] = "2.0"
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params, timeout):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == self.next_id and
                          "method" not in m, timeout, method)
        if "error" in reply:
            sys.exit("error: %s failed: %s" % (method, reply["error"]))
        return reply["result"]

    def wait(self, accept, timeout, what):
        while True:
            try:
                message = self.messages.get(timeout=timeout)
            except queue.Empty:
                sys.exit("error: no %s within %s s" % (what, timeout))
            if message is None:
                sys.exit("error: the server exited while waiting for %s" % what)
            # Server-to-client requests (workDoneProgress/create, ...) need an
            # answer or the server may wait for it.
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
                continue
            if accept(message):
                return message


def position(range_):
    s, e = range_["start"], range_["end"]
    return "%d:%d-%d:%d" % (s["line"], s["character"], e["line"], e["character"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clangd", required=True)
    parser.add_argument("--root", required=True, help="the workspace folder")
    parser.add_argument("--file", required=True, help="the file to open, under --root")
    parser.add_argument("--code-prefix", default="torch-",
                        help="ask for code actions on diagnostics with this code prefix")
    parser.add_argument("--timeout", type=float, default=120)
    args, server_args = parser.parse_known_args()

    root = pathlib.Path(args.root).resolve()
    path = (root / args.file).resolve()
    uri = path.as_uri()
    env = dict(os.environ)
    # Only the workspace's .clangd counts, not the user's config.yaml.
    env["XDG_CONFIG_HOME"] = str(root / ".xdg-config")
    server = Server([args.clangd, "--background-index=false", "--log=error"] +
                    server_args, env)

    server.request("initialize", {
        "processId": os.getpid(),
        "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "capabilities": {"textDocument": {
            "publishDiagnostics": {"relatedInformation": True},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {
                "valueSet": ["quickfix", "refactor", "source"]}}},
        }},
    }, args.timeout)
    server.notify("initialized", {})
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "cpp", "version": 1, "text": path.read_text()}})

    published = server.wait(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and
        m["params"]["uri"] == uri, args.timeout, "diagnostics")
    diagnostics = published["params"]["diagnostics"]
    for d in diagnostics:
        print("diagnostic %s source=%s code=%s severity=%s message=%s" % (
            position(d["range"]), d.get("source"), d.get("code"),
            d.get("severity"), json.dumps(d["message"])))

    for d in diagnostics:
        if not str(d.get("code", "")).startswith(args.code_prefix):
            continue
        actions = server.request("textDocument/codeAction", {
            "textDocument": {"uri": uri},
            "range": d["range"],
            "context": {"diagnostics": [d], "only": ["quickfix"]},
        }, args.timeout)
        for a in actions or []:
            codes = ",".join(str(x.get("code")) for x in a.get("diagnostics", []))
            print("action title=%s kind=%s preferred=%s diagnostics=%s" % (
                json.dumps(a["title"]), a.get("kind"),
                str(a.get("isPreferred", False)).lower(), codes))
            edit = a.get("edit", {})
            changes = dict(edit.get("changes", {}))
            for dc in edit.get("documentChanges", []):
                changes.setdefault(dc["textDocument"]["uri"], []).extend(dc["edits"])
            for file_uri, edits in sorted(changes.items()):
                name = file_uri.rsplit("/", 1)[-1]
                for e in edits:
                    print("edit %s %s newText=%s" % (
                        name, position(e["range"]), json.dumps(e["newText"])))

    server.request("shutdown", None, args.timeout)
    server.notify("exit", None)
    try:
        rc = server.proc.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        sys.exit("error: the server did not exit after shutdown")
    print("exit %d" % rc)


if __name__ == "__main__":
    main()
