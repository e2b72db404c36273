"""Loom-side fabric defect inspection: a small ResNet trunk (timm) and a prototype metric head."""
