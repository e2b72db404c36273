"""dockcam: handling-mark recognition for the loading-dock label cameras."""
