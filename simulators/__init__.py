"""A virtual card shoe speaking the shoe protocols, with faults on demand.

Never imports table_controller.
"""
