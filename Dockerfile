# Image for the API (and, later, the Temporal worker): Node 20, production dependencies
# plus tsx, which runs the TypeScript sources directly.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV NODE_ENV=production HOST=0.0.0.0
EXPOSE 3000
CMD ["npm", "start"]
