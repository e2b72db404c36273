"""Synthetic cold-room refrigeration unit (stands in for the fleet's labelled service history).
Pressures in kPa absolute, temperatures in deg C, current in A."""
import numpy as np

from . import FEATURES, STATES


def p_sat_kpa(t_c):
    """R134a saturation pressure (Clausius-Clapeyron fit, 0..50 C)."""
    return np.exp(15.42 - 2661.0 / (t_c + 273.15))


def snapshot(rng, state, ambient_c=(8.0, 38.0)):
    ambient = rng.uniform(*ambient_c)
    load = rng.uniform(0.45, 1.0)
    t_evap = -6.0 + 3.0 * (load - 0.7) + rng.normal(0, 0.6)
    t_cond = ambient + 11.0 + 4.0 * load + rng.normal(0, 0.7)
    superheat = 6.0 + rng.normal(0, 0.9)
    subcool = 5.0 + rng.normal(0, 0.8)
    box = 2.0 + rng.normal(0, 0.6)
    amps_k, td_extra = 1.0, 0.0
    if state == 1:                                      # refrigerant undercharge (leak)
        t_evap -= rng.uniform(2.0, 8.0)
        superheat += rng.uniform(3.0, 18.0)
        subcool = rng.uniform(0.0, 3.5)
        amps_k = rng.uniform(0.78, 0.9)
        td_extra = rng.uniform(8.0, 18.0)
        box += rng.uniform(1.0, 4.0)
    elif state == 2:                                    # condenser fouling
        t_cond += rng.uniform(3.0, 14.0)
        amps_k = rng.uniform(1.1, 1.25)
        td_extra = rng.uniform(4.0, 10.0)
    elif state == 3:                                    # evaporator airflow blocked / iced coil
        t_evap -= rng.uniform(3.0, 12.0)
        superheat = rng.uniform(0.0, 4.5)
        amps_k = rng.uniform(0.85, 0.95)
        box += rng.uniform(2.0, 6.0)
    elif state == 4:                                    # compressor valve wear (internal leak)
        t_evap += rng.uniform(1.5, 6.0)
        t_cond -= rng.uniform(1.5, 6.0)
        amps_k = rng.uniform(1.05, 1.2)
        td_extra = rng.uniform(8.0, 28.0)
        box += rng.uniform(0.5, 2.5)
    ps, pd = p_sat_kpa(t_evap), p_sat_kpa(t_cond)
    row = {
        "suction_kpa": ps + rng.normal(0, 4.0),
        "discharge_kpa": pd + rng.normal(0, 10.0),
        "suction_line_c": t_evap + superheat + rng.normal(0, 0.3),
        "discharge_line_c": t_cond + 22.0 + 2.5 * pd / ps + td_extra + rng.normal(0, 1.5),
        "liquid_line_c": t_cond - subcool + rng.normal(0, 0.3),
        "ambient_c": ambient + rng.normal(0, 0.3),
        "box_air_c": box,
        "compressor_a": (4.0 + 6.0 * load + 0.003 * (pd - ps)) * amps_k + rng.normal(0, 0.25),
    }
    return [row[f] for f in FEATURES]


def simulate(n, seed, weights=(0.4, 0.15, 0.15, 0.15, 0.15), ambient_c=(8.0, 38.0)):
    rng = np.random.default_rng(seed)
    states = rng.choice(len(STATES), size=n, p=weights)
    rows = np.array([snapshot(rng, s, ambient_c) for s in states], dtype=np.float64)
    return rows, states.astype(np.int64)
