"""Status-LED reader: classifies the state of one indicator LED from a 32x32 camera crop."""
