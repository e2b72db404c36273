INTENTS = ["lights_on", "lights_off", "set_temperature", "play_music", "set_timer"]
INTENT_ID = {name: i for i, name in enumerate(INTENTS)}
