"""Proxies of a MuJoCo body for solvers coupled to it."""
