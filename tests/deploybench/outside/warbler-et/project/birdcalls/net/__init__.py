from .callnet import ARCHITECTURES, CallNet, build, load_callnet

__all__ = ["ARCHITECTURES", "CallNet", "build", "load_callnet"]
