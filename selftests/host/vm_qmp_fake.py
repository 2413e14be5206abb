"""VM.qmp against a fake QMP server over a socketpair (no QEMU): each
command carries an id, and an answer that comes after its command timed
out is not taken for the next command's (the middleware soak's QMP probe
asks again after a stall)."""
import json
import os
import socket
import sys
import threading

import pytest

SELFTESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SELFTESTS)
import vmlib  # noqa: E402


class FakeQMPServer:
    """Reads one request per line; answers each when answer(request)
    returns a reply, in the order released, with the request's id."""

    def __init__(self, sock):
        self.sock = sock
        self.requests = []
        self.received = threading.Semaphore(0)
        self._file = sock.makefile("rb")
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        for line in self._file:
            self.requests.append(json.loads(line))
            self.received.release()

    def wait_request(self):
        assert self.received.acquire(timeout=5), "no QMP request came"
        return self.requests[-1]

    def reply(self, request, **body):
        body.setdefault("return", {})
        body["id"] = request["id"]
        self.sock.sendall(json.dumps(body).encode() + b"\n")

    def event(self, name):
        self.sock.sendall(json.dumps({"event": name}).encode() + b"\n")


@pytest.fixture
def vm_and_server():
    """A VM object that never started QEMU, its QMP socket one end of a
    socketpair; the other end is the fake server."""
    ours, theirs = socket.socketpair()
    vm = vmlib.VM.__new__(vmlib.VM)
    vm._qmp = ours
    vm._qmp_buf = b""
    vm._qmp_lock = threading.Lock()
    vm._qmp_last_id = 0
    vm.qmp_events = []
    vm.qmp_late_replies = []
    yield vm, FakeQMPServer(theirs)
    ours.close()
    theirs.close()


def qmp_in_thread(vm, cmd):
    result = {}

    def run():
        try:
            result["return"] = vm.qmp(cmd)
        except Exception as err:  # noqa: BLE001 - handed to the test
            result["error"] = err
    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def test_each_command_has_its_own_id(vm_and_server):
    vm, server = vm_and_server
    for expected_id, cmd in enumerate(("query-status", "query-name"), 1):
        thread, result = qmp_in_thread(vm, cmd)
        request = server.wait_request()
        assert request == {"execute": cmd, "id": expected_id}
        server.reply(request, **{"return": {"cmd": cmd}})
        thread.join(5)
        assert result == {"return": {"cmd": cmd}}


def test_a_late_answer_is_not_the_next_commands(vm_and_server, monkeypatch):
    vm, server = vm_and_server
    monkeypatch.setattr(vmlib, "QMP_TIMEOUT", 0.1)
    thread, result = qmp_in_thread(vm, "pmemsave")
    slow = server.wait_request()
    thread.join(5)
    assert isinstance(result["error"], vmlib.VMTimeout)

    monkeypatch.setattr(vmlib, "QMP_TIMEOUT", 5)
    thread, result = qmp_in_thread(vm, "query-status")
    fast = server.wait_request()
    server.reply(slow, **{"return": {"from": "pmemsave"}})
    server.event("STOP")
    server.reply(fast, **{"return": {"status": "running"}})
    thread.join(5)
    assert result == {"return": {"status": "running"}}
    assert vm.qmp_late_replies == [{"return": {"from": "pmemsave"}, "id": slow["id"]}]
    assert vm.qmp_events == [{"event": "STOP"}]


def test_an_error_answer_is_raised_for_its_command(vm_and_server):
    vm, server = vm_and_server
    thread, result = qmp_in_thread(vm, "qom-get")
    request = server.wait_request()
    server.reply(request, error={"class": "GenericError", "desc": "no such path"})
    thread.join(5)
    assert isinstance(result["error"], vmlib.VMError)
    assert "no such path" in str(result["error"])
