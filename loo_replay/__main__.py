from loo_replay.cli import main

main()
