"""One thin file per command (run(args, settings)), and the views they speak through (views/)."""
