"""ledgerly: bank statement import and spending summaries."""
