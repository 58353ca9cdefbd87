// Logging set-up shared by every tool: spdlog writes to stderr so that stdout stays clean for
// JSON/JSONL output. -v raises verbosity (debug, then trace), -q lowers it (warnings only, then
// errors only).
#pragma once

namespace clustune {

// verbosity: 0 is the default (info); each -v adds one, each -q subtracts one.
void setupLogging(int verbosity);

} // namespace clustune
