"""Bird-call recognition for a field recorder: log-mel frontend + a small GroupNorm CNN."""
