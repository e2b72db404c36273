"""herdcollar: behaviour classification for neck-mounted cattle collars.

collar.motion       synthetic 10 Hz neck motion for the four behaviours (grazing, ruminating,
                    walking, resting) and the collar IMU's raw int16 counts
collar.units        IMU count scales and the per-channel standardisation fitted on training data
collar.gait_tcn     GaitTCN, the 1-D conv classifier
collar.service      the collar gateway's ingest service (packets -> windows -> model)
"""
