import { NewChatView } from "@/components/chat/new-chat-view";

/** `/`, or `/?project=<id>`: a new chat, in that project. */
export default async function HomePage({ searchParams }: { searchParams: Promise<{ project?: string | string[] }> }) {
  const { project } = await searchParams;
  const projectId = typeof project === "string" && project ? project : null;
  return <NewChatView key={projectId ?? ""} projectId={projectId} />;
}
