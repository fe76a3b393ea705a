"""Tinker integration: a bridge that trains a run on Tinker from batches leased from the control plane."""
