#!/usr/bin/env python3
# aipc-venvs: onnxruntime-cpu
"""aipc_toolbox/affine.py, the map from what an app feeds to what the model was evaluated on,
over the shapes that preprocessing faults take (numpy only, seconds):

- one scale (÷255 for 0..16 data), a scale and an offset, 8-bit rounding on top;
- a normalisation per channel of an image, per feature of a table;
- another channel order (BGR for RGB), with and without a per-channel normalisation;
- what is not affine and must be refused: another element order, clipping, another shape, NaN;
- the identity is recognised as no fault, and `apply` inverts nothing: it maps app -> eval;
- large inputs are compared on an even stride of samples (bounded memory).
"""
import numpy as np

from checklib import check, main

from aipc_toolbox import affine

RNG = np.random.default_rng(7)
IMAGES = RNG.random((40, 3, 6, 6))
MEAN = np.array([0.485, 0.456, 0.406]).reshape(1, 3, 1, 1)
STD = np.array([0.229, 0.224, 0.225]).reshape(1, 3, 1, 1)


def fitted(app, ref, kind):
    fit, why = affine.fit(app, ref)
    assert fit is not None, why
    assert fit.kind == kind, fit
    assert fit.residual <= affine.MAX_RESIDUAL, fit
    # Within what the map leaves (8-bit rounding: up to ~1.7x its RMS), plus float rounding.
    tolerance = (4 * fit.residual + 1e-6) * float(np.std(ref))
    assert np.allclose(affine.apply(app, fit.scale, fit.shift), ref, rtol=0, atol=tolerance), fit
    assert not fit.identity(), fit
    return fit


def refused(app, ref, text):
    fit, why = affine.fit(app, ref)
    assert fit is None, fit
    assert text in why, why


@check
def one_scale_and_offset():
    scans = RNG.integers(0, 17, (30, 1, 8, 8))
    fit = fitted(scans / 255.0, scans / 16.0, "scalar")
    assert fit.scale == 15.9375 and fit.shift == 0.0, fit
    assert fit.describe() == "x 15.9375 + 0", fit.describe()
    fit = fitted(scans / 16.0, (scans / 16.0 - 0.5) / 0.25, "scalar")
    assert (fit.scale, fit.shift) == (4.0, -2.0) and fit.describe() == "x 4 - 2", fit


@check
def eight_bit_rounding_is_still_the_same_scale():
    fit = fitted(np.rint(IMAGES * 255).astype(np.uint8), IMAGES, "scalar")
    assert abs(fit.scale - 1 / 255) < 1e-5 and 0 < fit.residual < 0.01, fit


@check
def a_normalisation_per_channel_or_per_feature():
    fit = fitted(IMAGES, (IMAGES - MEAN) / STD, "per-channel")
    assert np.allclose(fit.scale, 1 / STD.reshape(-1)) and np.allclose(fit.shift, -(MEAN / STD).reshape(-1)), fit
    table = RNG.normal(50.0, 20.0, (64, 9))
    fitted(table, (table - table.mean(0)) / table.std(0), "per-channel")


@check
def another_channel_order_is_a_channel_mix():
    fit = fitted(IMAGES[:, ::-1], IMAGES, "channel-mix")
    assert fit.scale == [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]] and fit.shift == [0.0, 0.0, 0.0], fit
    fitted(IMAGES[:, ::-1], (IMAGES - MEAN) / STD, "channel-mix")


@check
def what_is_not_affine_is_refused_with_the_reason():
    refused(IMAGES.transpose(0, 1, 3, 2), IMAGES, "not an affine map")
    refused(np.clip(IMAGES * 3, 0, 1), IMAGES, "not an affine map")
    table = RNG.random((64, 12))
    refused(table[:, ::-1], table, "not an affine map")  # features reordered: no mixing for tables
    refused(IMAGES[:, :, :4], IMAGES, "fix the shape first")
    bad = IMAGES.copy()
    bad[0, 0, 0, 0] = np.nan
    refused(bad, IMAGES, "NaN")
    refused(IMAGES, np.ones_like(IMAGES), "constant")


@check
def the_same_values_are_no_fault():
    fit, _ = affine.fit(IMAGES.astype(np.float32), IMAGES)
    assert fit is not None and fit.identity(), fit


@check
def large_inputs_are_compared_on_a_stride_of_samples():
    samples = affine.MAX_ELEMENTS // IMAGES[0].size + 500
    big = np.broadcast_to(IMAGES[:1], (samples,) + IMAGES.shape[1:]) + RNG.random((samples, 1, 1, 1))
    fit = fitted(big * 2.0 + 1.0, big, "scalar")
    assert (fit.scale, fit.shift) == (0.5, -0.5), fit


if __name__ == "__main__":
    main()
