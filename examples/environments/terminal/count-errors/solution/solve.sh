#!/bin/bash
awk '$2 == "ERROR"' /app/data/service.log | wc -l > /app/answer.txt
