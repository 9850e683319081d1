#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A scripted HTTP server for the OAuth client's HTTP tests (Tests/ExternalUserAgentOAuthTests/ScriptedHTTPServer.swift).

Usage: scripted_http_server.py HOST PORT_FILE LOG_FILE MODE ANSWER_FILE [CERT_FILE KEY_FILE]

Listens on HOST (IPv4 or IPv6 literal) at a free port, written to PORT_FILE once listening. Each connection:
MODE "bytes" or "bytes-keep-open" reads one request (head and Content-Length body), appends it to LOG_FILE as one
JSON line ({"request": base64}) and flushed, then writes ANSWER_FILE's bytes and closes the connection (or leaves
it open); MODE "at-once" writes the answer as soon as anything arrives, then closes, and records nothing; MODE
"never" reads and records the request and never answers. With CERT_FILE and KEY_FILE (PEM), speaks TLS first; a
failed handshake only ends that connection. Standard library only.
"""
import base64
import json
import os
import signal
import socket
import ssl
import sys
import threading

host, port_file, log_file, mode, answer_file = sys.argv[1:6]
tls_files = sys.argv[6:8]
with open(answer_file, "rb") as f:
    answer = f.read()
log_lock = threading.Lock()
# Children of the test runner inherit its blocked signals: take SIGTERM back.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])

context = None
if tls_files:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls_files[0], tls_files[1])


def read_request(connection):
    """The request's bytes once its head and Content-Length body are in; None if the peer closed first."""
    received = b""
    while True:
        end = received.find(b"\r\n\r\n")
        if end >= 0:
            length = 0
            for line in received[:end].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if len(received) - (end + 4) >= length:
                return received
        chunk = connection.recv(65536)
        if not chunk:
            return None
        received += chunk


def serve(raw):
    connection = raw
    try:
        if context is not None:
            connection = context.wrap_socket(raw, server_side=True)
        if mode == "at-once":
            connection.recv(65536)
            connection.sendall(answer)
            return
        request = read_request(connection)
        if request is None:
            return
        with log_lock, open(log_file, "a") as log:
            log.write(json.dumps({"request": base64.b64encode(request).decode()}) + "\n")
        if mode == "never":
            threading.Event().wait()
        connection.sendall(answer)
        if mode == "bytes-keep-open":
            threading.Event().wait()
    except (OSError, ssl.SSLError):
        pass
    finally:
        try:
            connection.close()
        except OSError:
            pass


listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((host, 0))
listener.listen(64)
with open(port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
while True:
    raw, _ = listener.accept()
    threading.Thread(target=serve, args=(raw,), daemon=True).start()
