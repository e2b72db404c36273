"""acoustics: pump condition monitoring from the housing microphone."""
