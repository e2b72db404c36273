"""The gateway application: what runs next to the pump.

The sensor node sends one packet per 125 ms window: 128 frames of interleaved little-endian
int16 (x, y, z) ADC counts, 768 bytes. The gateway decodes a packet into a (1, 3, 128) float32
window in g and feeds the deployed classifier one window at a time (batch 1).
"""
import numpy as np

from pumpwatch import AXES, CONDITIONS, WINDOW
from pumpwatch.captures import load_capture
from pumpwatch.sensor import counts_to_g

PACKET_BYTES = WINDOW * AXES * 2


def encode_packet(counts: np.ndarray) -> bytes:
    """(3, 128) int16 counts -> the node's wire format (frame-interleaved, little-endian)."""
    return np.ascontiguousarray(counts.T).astype("<i2").tobytes()


def decode_packet(packet: bytes) -> np.ndarray:
    if len(packet) != PACKET_BYTES:
        raise ValueError(f"packet of {len(packet)} bytes, expected {PACKET_BYTES}")
    frames = np.frombuffer(packet, dtype="<i2").reshape(WINDOW, AXES)
    window = counts_to_g(np.ascontiguousarray(frames.T))
    return window.reshape(1, AXES, WINDOW)


def replay(capture: str = "rig_eval.npz"):
    """Packets as the node sent them during a rig capture, with their labels."""
    counts, labels = load_capture(capture)
    return [encode_packet(c) for c in counts], labels


def run_inputs():
    """A few packets from the rig replay, decoded as the gateway does (one per condition)."""
    packets, labels = replay()
    picks = [int(np.flatnonzero(labels == c)[0]) for c in range(len(CONDITIONS))]
    return [(decode_packet(packets[i]),) for i in picks]


def app_eval():
    """The gateway's own path over the evaluation capture: packet -> decode -> window."""
    packets, labels = replay()
    return [(decode_packet(p),) for p in packets], labels


def classify(session, packet: bytes) -> str:
    """Run one packet through an onnxruntime session."""
    logits = session.run(None, {"accel": decode_packet(packet)})[0]
    return CONDITIONS[int(logits[0].argmax())]
