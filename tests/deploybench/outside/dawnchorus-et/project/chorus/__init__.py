"""dawnchorus: call-type classifier for the unattended dawn-chorus recorders.

chorus.synth     renders synthetic 16x32 dB spectrogram clips of four call types
chorus.blocks    conv stages, exit heads and the exit confidence gate
chorus.cascade   ChorusCascade, the three-exit network the recorder runs
chorus.loader    builds the cascade with the committed weights
"""
