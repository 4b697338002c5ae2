"""The published bAbI dialog tasks 1-6 as released: the archive or its unpacked folder."""
