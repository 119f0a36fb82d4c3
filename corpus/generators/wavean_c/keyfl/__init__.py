"""keyfl: the keystroke-authentication Flower App (ServerApp + ClientApp) for the deployment engine."""
