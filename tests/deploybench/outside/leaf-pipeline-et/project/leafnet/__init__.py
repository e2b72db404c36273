"""leafnet: the leaf-patch classifier and its synthetic training data."""
from leafnet.model import LeafClassifier, load_classifier

__all__ = ["LeafClassifier", "load_classifier"]
