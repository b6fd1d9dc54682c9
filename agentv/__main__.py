"""``python -m agentv ARGS`` ≡ ``agentv ARGS``."""
from agentv.flows.cli.main import main

if __name__ == "__main__":
    main()
