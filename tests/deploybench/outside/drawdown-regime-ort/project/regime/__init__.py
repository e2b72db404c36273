"""Market-regime tagger for the risk desk: labels a 64-bar window of closes with its regime."""
