"""Messages between a student's kernel and the trusted checker: plain data on a Unix socket.

Nothing here ever unpickles or evaluates what the other side sends. A message is JSON; tensors and
arrays travel as dtype + shape + raw bytes; anything else that is not plain data crosses as a `Ref`
(a handle to an object that stays where it lives: calling it asks its owner to call it) or as an
`Opaque` description. The decoder checks sizes, depth, dtypes and shapes, so a hostile peer can make
a message fail but not make the receiver run its code or run out of memory.

Both sides use `Channel`: either may call the other's exported objects while it waits for a reply
(the checker calls a student's function through a driver; the student's function calls a guesser
that lives in the checker).
"""
import base64
import json
import math
import socket
import struct

import numpy as np
import torch

MAX_FRAME = 64 << 20          # bytes in one message
MAX_DEPTH = 40                # nesting of lists, tuples and dicts
MAX_ITEMS = 2_000_000         # values in one message
MAX_TEXT = 1 << 20            # characters of one string kept by the receiver
HEADER = struct.Struct("!Q")

TORCH_DTYPES = {name: getattr(torch, name) for name in (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")}
TORCH_NAMES = {dtype: name for name, dtype in TORCH_DTYPES.items()}
NUMPY_DTYPES = {"bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                "float16", "float32", "float64"}


class ProtocolError(Exception):
    """The peer sent something that is not a valid message of this protocol."""


class PeerClosed(ProtocolError):
    """The other side hung up (its process ended, or it was interrupted)."""


class RemoteError(Exception):
    """An exception raised on the other side, carried back as its type name and message."""

    def __init__(self, type_name, message):
        super().__init__(f"{type_name}: {message}" if message else type_name)
        self.type_name, self.message = type_name, message


class Ref:
    """A handle to an object that lives on `side` ("checker" or "kernel")."""
    __slots__ = ("side", "id")

    def __init__(self, side, id):
        self.side, self.id = side, id

    def __repr__(self):
        return f"Ref({self.side!r}, {self.id})"


class Opaque:
    """Something that could not cross as data: its type name and a short description."""
    __slots__ = ("type_name", "text")

    def __init__(self, type_name, text=""):
        self.type_name, self.text = type_name, text

    def __repr__(self):
        return f"<{self.type_name} {self.text}>" if self.text else f"<{self.type_name}>"


class Spec:
    """A stand-in object (see maskdiff_client.fakes) described by data: the kernel builds it."""
    __slots__ = ("kind", "args")

    def __init__(self, kind, args):
        self.kind, self.args = kind, args


# --------------------------------------------------------------------------- encoding

def _b64(raw):
    return base64.b64encode(raw).decode("ascii")


def _tensor(value):
    t = value.detach()
    if t.layout != torch.strided or t.dtype not in TORCH_NAMES:
        return {"~": "opaque", "type": "Tensor", "text": f"dtype {t.dtype}, layout {t.layout}"}
    if t.device.type == "meta":  # shape only, no values to send (notebook 05's check puts `device` there)
        return {"~": "opaque", "type": "Tensor", "text": f"on the meta device, shape {list(t.shape)}"}
    t = torch.Tensor.contiguous(t.cpu()).reshape(-1)
    raw = t.view(torch.uint8).numpy().tobytes() if t.numel() else b""
    return {"~": "tensor", "dtype": TORCH_NAMES[t.dtype], "shape": list(value.shape), "data": _b64(raw),
            "grad": bool(value.requires_grad)}


def _array(value):
    if value.dtype.name not in NUMPY_DTYPES:
        return {"~": "opaque", "type": "ndarray", "text": f"dtype {value.dtype}"}
    return {"~": "ndarray", "dtype": value.dtype.name, "shape": list(value.shape),
            "data": _b64(np.ascontiguousarray(value).tobytes())}


def encode(value, export=None, depth=0):
    """value -> JSON-able data. `export(obj)` turns an object that is not data into a Ref (or None to
    describe it as Opaque)."""
    if depth > MAX_DEPTH:
        raise ProtocolError(f"a value nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if torch.is_tensor(value):
        return _tensor(value)
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, np.generic):
        return encode(value.item(), export, depth + 1)
    if isinstance(value, list):
        return [encode(v, export, depth + 1) for v in value]
    if isinstance(value, tuple):  # torch.Size included
        return {"~": "tuple", "items": [encode(v, export, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"~": "dict", "items": [[encode(k, export, depth + 1), encode(v, export, depth + 1)]
                                       for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"~": "set", "items": [encode(v, export, depth + 1) for v in value]}
    if isinstance(value, bytes):
        return {"~": "bytes", "data": _b64(value)}
    if isinstance(value, torch.dtype):
        return {"~": "dtype", "name": TORCH_NAMES.get(value, str(value))}
    if isinstance(value, Ref):
        return {"~": "ref", "side": value.side, "id": value.id}
    if isinstance(value, Spec):
        return {"~": "spec", "kind": value.kind, "args": encode(value.args, export, depth + 1)}
    spec = getattr(type(value), "wire_spec", None)
    if spec is not None:
        return encode(Spec(*spec(value)), export, depth)
    ref = export(value) if export is not None else None
    if ref is not None:
        return {"~": "ref", "side": ref.side, "id": ref.id}
    return {"~": "opaque", "type": type(value).__name__, "text": ""}


# --------------------------------------------------------------------------- decoding

class _Budget:
    def __init__(self):
        self.items = 0

    def take(self, n=1):
        self.items += n
        if self.items > MAX_ITEMS:
            raise ProtocolError(f"a message with more than {MAX_ITEMS} values")


def _raw(data, nbytes):
    if not isinstance(data, str):
        raise ProtocolError("tensor data should be base64 text")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        raise ProtocolError("tensor data is not valid base64") from None
    if len(raw) != nbytes:
        raise ProtocolError(f"tensor data holds {len(raw)} bytes, its shape needs {nbytes}")
    return raw


def _shape(shape):
    # `type(n) is int` refuses bools too; checks decode tens of thousands of small tensors a notebook
    if not (type(shape) is list and len(shape) <= 16 and all(type(n) is int and n >= 0 for n in shape)):
        raise ProtocolError(f"bad tensor shape {shape!r}")
    numel = math.prod(shape)
    if numel > MAX_FRAME:
        raise ProtocolError(f"a tensor of {numel} elements")
    return tuple(shape), numel


def _decode_tensor(obj):
    dtype = TORCH_DTYPES.get(obj.get("dtype"))
    if dtype is None:
        raise ProtocolError(f"unknown tensor dtype {obj.get('dtype')!r}")
    shape, numel = _shape(obj.get("shape"))
    raw = _raw(obj.get("data"), numel * dtype.itemsize)
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)


def _decode_array(obj):
    if obj.get("dtype") not in NUMPY_DTYPES:
        raise ProtocolError(f"unknown array dtype {obj.get('dtype')!r}")
    dtype = np.dtype(obj["dtype"])
    shape, numel = _shape(obj.get("shape"))
    raw = _raw(obj.get("data"), numel * dtype.itemsize)
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def decode(obj, resolve=None, build=None, budget=None, depth=0):
    """JSON data -> value. `resolve(Ref)` gives the object a handle stands for; `build(kind, args)`
    makes a stand-in from its Spec (None: specs are refused)."""
    budget = budget or _Budget()
    budget.take()
    if depth > MAX_DEPTH:
        raise ProtocolError(f"a value nested deeper than {MAX_DEPTH} levels")
    if obj is None or isinstance(obj, (bool, int, float)):
        return obj
    if isinstance(obj, str):
        return obj[:MAX_TEXT]
    if isinstance(obj, list):
        budget.take(len(obj))
        return [decode(v, resolve, build, budget, depth + 1) for v in obj]
    if not isinstance(obj, dict):
        raise ProtocolError(f"unexpected JSON value of type {type(obj).__name__}")
    tag = obj.get("~")
    if tag == "tensor":
        return _decode_tensor(obj)
    if tag == "ndarray":
        return _decode_array(obj)
    if tag in ("tuple", "set", "dict"):
        items = obj.get("items")
        if not isinstance(items, list):
            raise ProtocolError(f"a {tag} without items")
        budget.take(len(items))
        if tag == "dict":
            out = {}
            for pair in items:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise ProtocolError("a dict item should be a [key, value] pair")
                key = decode(pair[0], resolve, build, budget, depth + 1)
                if not isinstance(key, (str, int, float, bool, type(None), tuple)):
                    raise ProtocolError(f"a dict key of type {type(key).__name__}")
                out[key] = decode(pair[1], resolve, build, budget, depth + 1)
            return out
        values = [decode(v, resolve, build, budget, depth + 1) for v in items]
        if tag == "tuple":
            return tuple(values)
        try:
            return set(values)
        except TypeError:
            raise ProtocolError("a set of unhashable values") from None
    if tag == "bytes":
        data = obj.get("data")
        return base64.b64decode(data) if isinstance(data, str) else b""
    if tag == "dtype":
        name = obj.get("name")
        return TORCH_DTYPES.get(name, Opaque("dtype", str(name)[:100]))
    if tag == "opaque":
        return Opaque(str(obj.get("type"))[:100], str(obj.get("text", ""))[:1000])
    if tag == "ref":
        side, ref_id = obj.get("side"), obj.get("id")
        if side not in ("checker", "kernel") or not isinstance(ref_id, int):
            raise ProtocolError(f"bad handle {obj!r:.200}")
        ref = Ref(side, ref_id)
        return resolve(ref) if resolve is not None else ref
    if tag == "spec":
        if build is None:
            raise ProtocolError("this side does not build stand-ins")
        return build(str(obj.get("kind")), decode(obj.get("args"), resolve, build, budget, depth + 1))
    raise ProtocolError(f"unknown value tag {tag!r:.100}")


# --------------------------------------------------------------------------- the channel

def _recv_exactly(sock, n):
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise PeerClosed("the other side closed the connection")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


class Channel:
    """One connection; `side` is who we are. `objects` holds what we exported to the peer (handles are
    only valid while they are in it). `handle(op, message)` serves unsolicited requests (drives,
    checks) that are not calls of exported objects."""

    def __init__(self, sock, side, build=None):
        self.sock, self.side, self.build = sock, side, build
        self.objects, self.next_object, self.next_message = {}, 1, 1
        self.serve_ops = {}

    # framing
    def send(self, message):
        data = json.dumps(message, separators=(",", ":"), allow_nan=True).encode("utf-8")
        if len(data) > MAX_FRAME:
            raise ProtocolError(f"a message of {len(data)} bytes is larger than {MAX_FRAME}")
        self.sock.sendall(HEADER.pack(len(data)) + data)

    def recv(self):
        (size,) = HEADER.unpack(_recv_exactly(self.sock, HEADER.size))
        if size > MAX_FRAME:
            raise ProtocolError(f"a message of {size} bytes is larger than {MAX_FRAME}")
        try:
            message = json.loads(_recv_exactly(self.sock, size))
        except (ValueError, RecursionError) as err:
            raise ProtocolError(f"a message that is not valid JSON ({type(err).__name__})") from None
        if not (isinstance(message, dict) and isinstance(message.get("op"), str)):
            raise ProtocolError("a message without an op")
        return message

    # values
    def export(self, obj):
        if not callable(obj):
            return None
        ref_id = self.next_object
        self.next_object += 1
        self.objects[ref_id] = obj
        return Ref(self.side, ref_id)

    def forget(self):
        """Drop every exported object: handles from an earlier check stop working."""
        self.objects.clear()

    def resolve(self, ref):
        if ref.side == self.side:
            if ref.id not in self.objects:
                raise ProtocolError(f"a handle that is not (or no longer) valid: {ref!r}")
            return self.objects[ref.id]
        return RemoteObject(self, ref)

    def encode(self, value):
        return encode(value, self.export)

    def decode(self, obj):
        return decode(obj, self.resolve, self.build)

    # calls
    def request(self, message):
        """Send a request and wait for its reply, serving the peer's calls in the meantime."""
        message_id = self.next_message
        self.next_message += 1
        self.send({**message, "id": message_id})
        while True:
            reply = self.recv()
            op = reply["op"]
            if op in ("return", "raise") and reply.get("re") == message_id:
                if op == "raise":
                    raise RemoteError(str(reply.get("type", "Error"))[:200], str(reply.get("message", ""))[:MAX_TEXT])
                return self.decode(reply.get("value"))
            self.serve(reply)

    def call(self, ref, args, kwargs=None):
        return self.request({"op": "call", "target": ref.id, "args": self.encode(list(args)),
                             "kwargs": self.encode(dict(kwargs or {}))})

    def serve(self, message):
        """Answer one request from the peer: a call of one of our exported objects, or an op this side
        registered in serve_ops."""
        op = message["op"]
        if op == "call":
            target = self.objects.get(message.get("target"))
            if target is None:
                raise ProtocolError(f"a call of an object that is not (or no longer) exported: "
                                    f"{message.get('target')!r:.50}")
            work = lambda: target(*self.decode(message.get("args")), **self.decode(message.get("kwargs")))  # noqa: E731
        elif op in self.serve_ops:
            work = lambda: self.serve_ops[op](message)  # noqa: E731
        else:
            raise ProtocolError(f"unexpected message {op!r:.50}")
        self.reply(message.get("id"), work)

    def reply(self, message_id, work):
        try:
            value = work()
        except ProtocolError:
            raise
        except Exception as err:  # noqa: BLE001 - carried back to the caller as data
            self.send({"op": "raise", "re": message_id, "type": type(err).__name__,
                       "message": _text(err)})
            return
        self.send({"op": "return", "re": message_id, "value": self.encode(value)})


def _text(err):
    try:
        return str(err)[:20_000]
    except Exception:  # noqa: BLE001 - a student's exception whose __str__ itself fails
        return ""


class RemoteObject:
    """A callable that lives on the other side."""

    def __init__(self, channel, ref):
        self._channel, self._ref = channel, ref

    def __call__(self, *args, **kwargs):
        return self._channel.call(self._ref, args, kwargs)

    def __repr__(self):
        return f"<{self._ref.side} object {self._ref.id}>"


def connect(path, timeout=None):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    return sock
