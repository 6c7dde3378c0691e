"""Process handling shared by every command: worker pools, the plug-in supervisor, decision time
limits, the reaper of engine processes, Dask clusters, the exit statuses and the install hints.
It imports the core only.
"""
