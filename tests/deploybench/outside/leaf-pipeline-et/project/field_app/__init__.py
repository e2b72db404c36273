"""field_app: the scouting app that runs on the field tablet. `capture` turns camera crops into
model input; `scout` walks a row of plants and asks the classifier about each crop."""
