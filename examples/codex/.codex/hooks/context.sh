#!/bin/sh
# Context for the model: plain text on stdout is added as context on SessionStart and
# UserPromptSubmit.
echo "This project runs its tests with: cargo nextest run"
