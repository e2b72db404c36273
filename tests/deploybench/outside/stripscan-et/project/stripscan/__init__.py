"""Strip-steel surface inspection: tile classifier behind the line-scan camera."""
