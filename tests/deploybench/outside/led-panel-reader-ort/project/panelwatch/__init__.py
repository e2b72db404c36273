"""panelwatch: the line-side service that reads panel status LEDs from the line camera and
reports them to the MES. Runs the exported reader (ONNX Runtime, CPU) on each crop."""
