"""The checker reads whatever a hostile kernel sends: every malformed or oversized message is refused
with a ProtocolError (never unpickled, evaluated, or allowed to allocate without bound), and honest
values survive the round trip exactly."""
import json
import socket
import struct
import threading

import numpy as np
import pytest
import torch

from maskdiff_client import wire


def roundtrip(value):
    return wire.decode(json.loads(json.dumps(wire.encode(value))))


@pytest.mark.parametrize("value", [
    None, True, 3, -2 ** 70, 1.5, float("inf"), "text ü", [1, [2, (3, 4)]], {"a": 1, 2: (3,)}, {1, 2},
    b"bytes", torch.float32,
])
def test_plain_values_survive(value):
    assert roundtrip(value) == value


@pytest.mark.parametrize("tensor", [
    torch.arange(12).reshape(3, 4), torch.rand(2, 3, dtype=torch.float64), torch.tensor([True, False]),
    torch.rand(4).to(torch.bfloat16), torch.empty(0, 5), torch.tensor(3.5), torch.arange(10)[::2],
])
def test_tensors_survive_with_dtype_and_shape(tensor):
    back = roundtrip(tensor)
    assert back.dtype == tensor.dtype and back.shape == tensor.shape and torch.equal(back, tensor)


def test_arrays_and_numpy_scalars_survive():
    array = np.arange(6, dtype=np.int16).reshape(2, 3)
    back = roundtrip(array)
    assert back.dtype == array.dtype and (back == array).all()
    assert roundtrip(np.float32(2.5)) == 2.5


def test_objects_that_are_not_data_cross_as_descriptions():
    back = roundtrip(object())
    assert isinstance(back, wire.Opaque) and back.type_name == "object"


def test_a_tensor_without_data_crosses_as_a_description():
    back = roundtrip(torch.zeros(2, 3, device="meta"))
    assert isinstance(back, wire.Opaque) and back.type_name == "Tensor" and "meta" in back.text


@pytest.mark.parametrize("bad, why", [
    ({"~": "tensor", "dtype": "int64", "shape": [2], "data": "AAAA"}, "holds"),
    ({"~": "tensor", "dtype": "object", "shape": [1], "data": ""}, "dtype"),
    ({"~": "tensor", "dtype": "float32", "shape": [1 << 20, 1 << 20], "data": ""}, "elements"),
    ({"~": "tensor", "dtype": "float32", "shape": [-1], "data": ""}, "shape"),
    ({"~": "tensor", "dtype": "float32", "shape": [1], "data": "!!!"}, "base64"),
    ({"~": "ndarray", "dtype": "O", "shape": [1], "data": ""}, "dtype"),
    ({"~": "pickle", "data": "gASVAAAA"}, "unknown value tag"),
    ({"~": "dict", "items": [[[1, 2], 3]]}, "key"),
    ({"~": "ref", "side": "kernel", "id": "1"}, "handle"),
    ({"~": "spec", "kind": "os.system", "args": {}}, "stand-ins"),
])
def test_malformed_values_are_refused(bad, why):
    with pytest.raises(wire.ProtocolError, match=why):
        wire.decode(bad)


def test_nesting_and_size_are_bounded():
    deep = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(wire.ProtocolError, match="deeper"):
        wire.decode(deep)
    with pytest.raises(wire.ProtocolError, match="values"):
        wire.decode([0] * (wire.MAX_ITEMS + 1))


def test_handles_resolve_only_while_exported():
    a, b = socket.socketpair()
    channel = wire.Channel(a, "checker")
    ref = channel.export(lambda: 1)
    assert channel.resolve(ref)() == 1
    channel.forget()
    with pytest.raises(wire.ProtocolError, match="no longer"):
        channel.resolve(ref)
    a.close(), b.close()


def test_a_frame_announcing_too_much_is_refused_unread():
    a, b = socket.socketpair()
    channel = wire.Channel(a, "checker")
    b.sendall(struct.pack("!Q", wire.MAX_FRAME + 1))
    with pytest.raises(wire.ProtocolError, match="larger than"):
        channel.recv()
    b.sendall(struct.pack("!Q", 5) + b"[[[[[")
    with pytest.raises(wire.ProtocolError, match="not valid JSON"):
        channel.recv()
    b.sendall(struct.pack("!Q", 2) + b"[]")
    with pytest.raises(wire.ProtocolError, match="without an op"):
        channel.recv()
    b.close()
    with pytest.raises(wire.PeerClosed):
        channel.recv()
    a.close()


def test_calls_go_both_ways_while_a_request_waits():
    """The checker asks the kernel for something; to answer, the kernel calls back into the checker."""
    a, b = socket.socketpair()
    checker, kernel = wire.Channel(a, "checker"), wire.Channel(b, "kernel")
    doubled = checker.export(lambda x: 2 * x)
    kernel.serve_ops["drive"] = lambda message: kernel.decode(message["callback"])(torch.tensor([1, 2])) + 1

    def serve():
        kernel.serve(kernel.recv())
    thread = threading.Thread(target=serve)
    thread.start()
    out = checker.request({"op": "drive", "callback": checker.encode(doubled)})
    thread.join()
    assert torch.equal(out, torch.tensor([3, 5]))
