"""Bottling line: the inline probe's frames -> grade calls before filling."""
