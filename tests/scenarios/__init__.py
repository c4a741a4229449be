"""Cross-cutting scenarios: whole tables played over real sockets, processes and terminals."""
