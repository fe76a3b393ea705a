#!/bin/bash
sed 's/^ *//; s/ *$//' /app/names.txt | tr '[:lower:]' '[:upper:]' | sort -u > /app/sorted.txt
