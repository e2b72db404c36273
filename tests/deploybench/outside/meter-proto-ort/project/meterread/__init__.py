"""meterread: reads the digit wheels of utility meters from camera crops with a small
prototype network (each class is recognised by its similarity to learned prototype parts)."""
from meterread.registry import create_model, list_models  # noqa: F401
from meterread import nets  # noqa: F401  (registers the architectures)
