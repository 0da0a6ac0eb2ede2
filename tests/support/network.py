"""The suite runs with the network off: a socket may reach the loopback address only.

Everything the product needs ships with it (tiktoken's files, the wordllama model); a test that
needs a server starts one on 127.0.0.1. A connection anywhere else fails at once, as it would
on a machine with no network, instead of waiting on a timeout or quietly succeeding here.
"""

from __future__ import annotations

import ipaddress
import socket

_REAL_CONNECT = socket.socket.connect
_REAL_CONNECT_EX = socket.socket.connect_ex


class NetworkOff(OSError):
    """A test reached for an address that is not the loopback one."""


def is_local(address) -> bool:
    if not isinstance(address, tuple):
        return True  # a Unix socket's path
    host = address[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _connect(self, address):
    if not is_local(address):
        raise NetworkOff(f"the network is off in tests; tried to reach {address!r}")
    return _REAL_CONNECT(self, address)


def _connect_ex(self, address):
    if not is_local(address):
        raise NetworkOff(f"the network is off in tests; tried to reach {address!r}")
    return _REAL_CONNECT_EX(self, address)


def switch_off() -> None:
    """Refuse every connection but the loopback's, for the rest of the process."""
    socket.socket.connect = _connect
    socket.socket.connect_ex = _connect_ex
