"""Operations: jobs, cron, missions, proposals, the curator, doctor, status, usage log and contact requests."""
