import { FileText, Upload, X } from "lucide-react";
import { useRef, useState, type DragEvent } from "react";
import { Button } from "~/components/ui/button";
import { ACCEPTED_TYPE, formatFileSize, STATED_MAX_MB, validateDrop } from "~/lib/uploads";

export interface UploadPanelProps {
  /** Uploads the files, reporting per-file progress (0..1); resolves when done (clears the selection) or throws. */
  onUpload: (files: File[], onProgress: (perFile: number[]) => void) => Promise<void>;
  /** Shown above the drop zone (e.g. the Professional notice for Free users). */
  notice?: string | null;
}

/**
 * SPEC §2 Upload tab: the drag-and-drop zone (click opens the file picker), the selected-files
 * list (scrolls at 15rem) with per-file remove and upload progress, 'Upload N Files' ('Processing...'
 * while pending) and 'Clear All'. Drop rejections show the spec's messages under the zone.
 */
export function UploadPanel({ onUpload, notice }: UploadPanelProps) {
  const input = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<number[] | null>(null);
  const [rejections, setRejections] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const [pending, setPending] = useState(false);

  const add = (list: FileList | null) => {
    if (!list || pending) return;
    const { accepted, rejected } = validateDrop([...list]);
    setRejections(rejected.map((r) => `${r.file.name}: ${r.message}`));
    if (accepted.length) {
      setFiles((current) => [...current, ...accepted]);
      setProgress(null);
    }
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  };

  const upload = async () => {
    setPending(true);
    setProgress(files.map(() => 0));
    try {
      await onUpload(files, setProgress);
      setFiles([]);
      setProgress(null);
    } catch {
      setProgress(null);
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="space-y-4">
      {notice ? (
        <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-800">{notice}</p>
      ) : null}
      <div
        data-testid="drop-zone"
        role="button"
        tabIndex={0}
        onClick={() => input.current?.click()}
        onKeyDown={(e) => {
          if (e.key === "Enter" || e.key === " ") input.current?.click();
        }}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={`flex cursor-pointer flex-col items-center justify-center gap-3 rounded-xl border-2 border-dashed px-6 py-12 text-center transition-colors ${
          dragging ? "border-blue-500 bg-blue-50" : "border-slate-300 bg-white hover:border-blue-400"
        }`}
      >
        <Upload className="size-10 text-slate-400" aria-hidden />
        <p className="text-base font-medium text-slate-800">Drag and drop PDF files here, or click to select files</p>
        <p className="text-sm text-slate-500">PDF only · up to 10 files at a time · max {STATED_MAX_MB}MB per file</p>
        <input
          ref={input}
          data-testid="file-input"
          type="file"
          accept={ACCEPTED_TYPE}
          multiple
          className="hidden"
          onChange={(e) => {
            add(e.target.files);
            e.target.value = "";
          }}
        />
      </div>
      {rejections.length ? (
        <ul className="space-y-1 text-sm text-red-600" data-testid="drop-rejections">
          {rejections.map((r, i) => (
            <li key={i}>{r}</li>
          ))}
        </ul>
      ) : null}
      {files.length ? (
        <div className="space-y-3">
          <h3 className="text-sm font-semibold text-slate-700">Selected files ({files.length})</h3>
          <ul className="max-h-[15rem] space-y-2 overflow-y-auto pr-1" data-testid="selected-files">
            {files.map((file, i) => (
              <li key={`${file.name}-${i}`} className="rounded-lg border border-slate-200 bg-white px-3 py-2">
                <div className="flex items-center gap-3">
                  <FileText className="size-5 shrink-0 text-red-500" aria-hidden />
                  <div className="min-w-0 flex-1">
                    <p className="truncate text-sm font-medium text-slate-800">{file.name}</p>
                    <p className="text-xs text-slate-500">{formatFileSize(file.size)}</p>
                  </div>
                  <Button
                    variant="ghost"
                    size="icon"
                    className="size-8"
                    aria-label={`Remove ${file.name}`}
                    disabled={pending}
                    onClick={() => setFiles((current) => current.filter((_, k) => k !== i))}
                  >
                    <X aria-hidden />
                  </Button>
                </div>
                {progress ? (
                  <div
                    className="mt-2 h-1.5 overflow-hidden rounded-full bg-slate-100"
                    role="progressbar"
                    aria-label={`Upload progress of ${file.name}`}
                    aria-valuemin={0}
                    aria-valuemax={100}
                    aria-valuenow={Math.round((progress[i] ?? 0) * 100)}
                  >
                    <div
                      className="h-full bg-blue-600 transition-[width]"
                      style={{ width: `${Math.round((progress[i] ?? 0) * 100)}%` }}
                    />
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
          <div className="flex gap-2">
            <Button onClick={upload} disabled={pending}>
              {pending ? "Processing..." : `Upload ${files.length} Files`}
            </Button>
            <Button
              variant="outline"
              disabled={pending}
              onClick={() => {
                setFiles([]);
                setProgress(null);
                setRejections([]);
              }}
            >
              Clear All
            </Button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
