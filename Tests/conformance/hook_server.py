"""A small HTTP server on loopback standing in for the app's own hook code (an Edge Function, a Cloud
Function, a Lambda behind `sam local start-lambda`): it records every call and answers as a test says."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class HookCall:
    def __init__(self, path, headers, body):
        self.path = path
        self.headers = headers
        self.raw = body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None


class HookServer:
    """Answers POSTs with `answer(call)`, which returns a JSON-able object (200), or a tuple
    `(status, body, content_type)` where body is bytes, str or a JSON-able object. Calls are kept in order."""

    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer or (lambda call: {})
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                call = HookCall(self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                hook.calls.append(call)
                result = hook.answer(call)
                status, body, content_type = (200, result, "application/json") if not isinstance(result, tuple) else result
                if status == 204 and body is None:
                    self.send_response(204)
                    self.end_headers()
                    return
                if not isinstance(body, (bytes, str)):
                    body = json.dumps(body)
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                if content_type:
                    self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def at(self, path=""):
        return self.url + path

    def calls_to(self, path):
        return [c for c in self.calls if c.path == path]

    def close(self):
        self.server.shutdown()
        self.server.server_close()
