"""Conversion: one DSTC2 call into one task-6 dialog (words, api_calls, KB results, ratings)."""
