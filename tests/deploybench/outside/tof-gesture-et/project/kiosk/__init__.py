"""The kiosk's gesture service: ToF driver frames -> rolling window -> GestureNet on ExecuTorch."""
