"""pumpwatch: condition classification for centrifugal pumps from a 4-channel sensor head."""
