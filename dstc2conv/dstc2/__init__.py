"""Reading DSTC2: the official tarballs and unpacked folders, their JSON, and the worker processes that parse it."""
