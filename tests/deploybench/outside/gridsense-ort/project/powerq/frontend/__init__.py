from .smoother import AdaptiveSmoother, SmootherConfig

__all__ = ["AdaptiveSmoother", "SmootherConfig"]
