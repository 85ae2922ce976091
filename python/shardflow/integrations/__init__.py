"""Bridges from shardflow's readers to training frameworks; each imports its framework, so
``import shardflow`` alone needs none of them."""
